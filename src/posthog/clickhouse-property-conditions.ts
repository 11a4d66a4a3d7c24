/**
 * PostHog property filters as ClickHouse conditions: what HogQL's `property_to_expr` prints, run
 * on ClickHouse itself. The same answers as property-conditions.ts gives on SQLite and PostgreSQL:
 *
 * - a property is its value as text (`true`/`false`, digits), NULL when missing or JSON null;
 * - positive comparisons never match NULL (`ifNull(…, 0)`), negative ones always do (`ifNull(…, 1)`);
 * - a list is IN / NOT IN for exact / is_not, otherwise one comparison per value, ORed (ANDed for
 *   negative ones); an empty list filters nothing.
 *
 * Conditions are read with readPropertyCondition (property-conditions.ts), which checks them.
 */
import { ch, join, raw, type ChSql } from '../platform/analytics/sql.js';
import { asNumber, asText, containsPattern, type PropertyCondition } from './property-conditions.js';
import { pythonStr } from './python-text.js';

/** Where a condition reads properties from. */
export interface PropertySource {
  /** The JSON text column, as SQL (`e.properties`). */
  column: string;
  /** A column that already holds the property as text (a materialized one), if any. */
  columnOf?: (key: string) => string | undefined;
}

/** The property as text, NULL when missing or JSON null. */
export function propertyText(source: PropertySource, key: string): ChSql {
  const column = source.columnOf?.(key);
  if (column) return raw(column);
  return ch`JSONExtract(${raw(source.column)}, ${key}, 'Nullable(String)')`;
}

/** The property as a number, NULL when it does not read as one. */
export function propertyNumber(source: PropertySource, key: string): ChSql {
  return ch`toFloat64OrNull(${propertyText(source, key)})`;
}

const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** A number to compare with: beyond a double's range ("1e400") it is infinity, as Python's float() reads it, which no parameter can carry. */
function numberLiteral(number: number): ChSql {
  return Number.isFinite(number) ? ch`${number}` : raw(number > 0 ? 'inf' : '-inf');
}

function compileOne(source: PropertySource, condition: PropertyCondition, value: unknown): ChSql {
  const text = propertyText(source, condition.key);
  switch (condition.operator) {
    case 'exact':
      return value === null ? ch`isNull(${text})` : ch`ifNull(${text} = ${asText(value)}, 0)`;
    case 'is_not':
      return value === null ? ch`isNotNull(${text})` : ch`ifNull(${text} != ${asText(value)}, 1)`;
    case 'is_set':
      return ch`isNotNull(${text})`;
    case 'is_not_set':
      return ch`isNull(${text})`;
    case 'icontains':
      return ch`ifNull(ilike(${text}, ${containsPattern(value)}), 0)`;
    case 'not_icontains':
      return ch`ifNull(NOT ilike(${text}, ${containsPattern(value)}), 1)`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const op = raw(COMPARE[condition.operator]);
      const number = asNumber(value);
      if (number !== undefined) return ch`ifNull(${propertyNumber(source, condition.key)} ${op} ${numberLiteral(number)}, 0)`;
      // A non-numeric value (a date, say) compares as text, byte by byte.
      return ch`ifNull(${text} ${op} ${asText(value)}, 0)`;
    }
    case 'between':
    case 'not_between': {
      const [low, high] = (value as unknown[]).map((v) => asNumber(v)!);
      const number = propertyNumber(source, condition.key);
      return condition.operator === 'between'
        ? ch`ifNull(${number} >= ${low!} AND ${number} <= ${high!}, 0)`
        : ch`ifNull(${number} < ${low!} OR ${number} > ${high!}, 0)`;
    }
    case 'regex':
      return value === null ? raw('0') : ch`ifNull(match(${text}, ${pythonStr(value)}), 0)`;
    case 'not_regex':
      return value === null ? raw('1') : ch`ifNull(NOT match(${text}, ${pythonStr(value)}), 1)`;
    default:
      throw new Error(`${condition.operator} is not compiled by compileOne`);
  }
}

/** IN / NOT IN over a list; a null in the list matches a missing property (transform_null_in). */
function compileIn(source: PropertySource, key: string, values: unknown[], negated: boolean): ChSql {
  const text = propertyText(source, key);
  const texts = values.filter((v) => v !== null).map(asText);
  const hasNull = texts.length < values.length;
  const listed = texts.length > 0 ? ch`${text} IN ${texts}` : raw('0');
  if (!negated) return hasNull ? ch`(ifNull(${listed}, 0) OR isNull(${text}))` : ch`ifNull(${listed}, 0)`;
  return hasNull ? ch`(isNotNull(${text}) AND NOT ifNull(${listed}, 0))` : ch`(isNull(${text}) OR NOT ifNull(${listed}, 0))`;
}

/** One property filter as a ClickHouse condition, or null when it filters nothing (an empty list). */
export function compileClickHouseCondition(condition: PropertyCondition, source: PropertySource): ChSql | null {
  const { operator } = condition;
  let values: unknown[] = [condition.value];
  if (Array.isArray(condition.value) && operator !== 'between' && operator !== 'not_between') {
    values = condition.value;
    if (values.length === 0) return null;
    if (values.length > 1 && (operator === 'exact' || operator === 'in')) return compileIn(source, condition.key, values, false);
    if (values.length > 1 && (operator === 'is_not' || operator === 'not_in')) return compileIn(source, condition.key, values, true);
  } else if (operator === 'in' || operator === 'not_in') {
    return compileIn(source, condition.key, values, operator === 'not_in');
  }
  const each = values.map((value) => compileOne(source, condition, value));
  if (each.length === 1) return each[0]!;
  const negative = operator === 'not_icontains' || operator === 'is_not' || operator === 'not_regex';
  return ch`(${join(each, negative ? ' AND ' : ' OR ')})`;
}
