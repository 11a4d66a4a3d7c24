/**
 * Person property filters as SQL over `persons.properties`, with the answers PostHog's persons
 * list gives (HogQL's `property_to_expr` and `_expr_to_compare_op`, printed for ClickHouse):
 *
 * - a property is its value as text (`true`/`false`, digits), NULL when missing or JSON null;
 * - positive comparisons (exact, icontains, gt, in, regex, …) never match NULL, negative ones
 *   (is_not, not_icontains, not_regex, not_in) always do: the printer wraps them in
 *   `ifNull(…, 0)` and `ifNull(…, 1)`;
 * - a list value is IN / NOT IN for exact / is_not, otherwise one comparison per value, ORed
 *   (ANDed for the negative ones); an empty list filters nothing, a one-value list is the value.
 *
 * The conditions read the JSON the same way on SQLite and PostgreSQL (db/json-path.ts) and differ
 * only where the dialects do (case folding, text order). SQLite has no regular expressions, so
 * regex filters are not SQL: they read the property's text and test it here (RegexCheck), with
 * RE2's syntax and linear-time matching, as ClickHouse's `match` (lib/linear-regex.ts), on both
 * backends alike.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../db/database.js';
import { jsonNumber, jsonText } from '../db/json-path.js';
import { validationError } from '../http/errors.js';
import { compileLinearRegex, type LinearRegex } from '../lib/linear-regex.js';
import { pythonStr } from '../lib/python-text.js';
import type { PropertyCondition } from './list-params.js';

export type Condition = RawBuilder<SqlBool>;

const PROPERTIES = 'p.properties';

/** A regex filter, tested on the property's text after the SQL filters have run. */
export interface RegexCheck {
  key: string;
  test(text: string | null): boolean;
}

export type Compiled = { sql: Condition } | { regex: RegexCheck } | { all: true };

/** A value as the text it is compared with: HogQL turns booleans into "true"/"false". */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A number for gt/lt when the value reads as one (ClickHouse converts a numeric literal). */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

/**
 * ClickHouse's ILIKE with PostHog's `%{value}%`: the value is not escaped, so its own `%` and `_`
 * are wildcards there too, and a backslash escapes the next character.
 */
export function containsPattern(value: unknown): string {
  return `%${pythonStr(value)}%`.toLowerCase();
}

export function ilike(dialect: DialectName, expression: RawBuilder<unknown>, pattern: string): Condition {
  // PostgreSQL's ILIKE folds case as ClickHouse does (Unicode); SQLite's lower() folds ASCII only.
  if (dialect === 'postgres') return sql<SqlBool>`(${expression} ilike ${pattern} escape '\\')`;
  return sql<SqlBool>`(lower(${expression}) like ${pattern} escape '\\')`;
}

function compareOperator(operator: 'gt' | 'gte' | 'lt' | 'lte') {
  return sql.raw({ gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator]);
}

/** One comparison with one (non-list) value. */
function compileOne(dialect: DialectName, condition: PropertyCondition, value: unknown): Condition {
  const text = jsonText(dialect, PROPERTIES, condition.key);
  switch (condition.operator) {
    case 'exact':
      // `== None` is printed `isNull`.
      return value === null ? sql<SqlBool>`(${text} is null)` : sql<SqlBool>`(${text} = ${asText(value)})`;
    case 'is_not':
      return value === null ? sql<SqlBool>`(${text} is not null)` : sql<SqlBool>`(${text} is null or ${text} <> ${asText(value)})`;
    case 'is_set':
      return sql<SqlBool>`(${text} is not null)`;
    case 'is_not_set':
      return sql<SqlBool>`(${text} is null)`;
    case 'icontains':
      return ilike(dialect, text, containsPattern(value));
    case 'not_icontains':
      return sql<SqlBool>`(${text} is null or not ${ilike(dialect, text, containsPattern(value))})`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const op = compareOperator(condition.operator);
      const number = asNumber(value);
      if (number !== undefined) return sql<SqlBool>`(${jsonNumber(dialect, PROPERTIES, condition.key)} ${op} ${number})`;
      // A non-numeric value (a date, say) compares as text, byte by byte as ClickHouse does.
      const collate = dialect === 'postgres' ? sql.raw(' collate "C"') : sql.raw('');
      return sql<SqlBool>`(${text} ${op} ${asText(value)}${collate})`;
    }
    case 'between':
    case 'not_between': {
      const [low, high] = (value as unknown[]).map((v) => asNumber(v)!);
      const number = jsonNumber(dialect, PROPERTIES, condition.key);
      return condition.operator === 'between'
        ? sql<SqlBool>`(${number} >= ${low} and ${number} <= ${high})`
        : sql<SqlBool>`(${number} < ${low} or ${number} > ${high})`;
    }
    default:
      throw new Error(`${condition.operator} is not compiled by compileOne`);
  }
}

/**
 * IN / NOT IN over a list. ClickHouse runs with transform_null_in, so a null in the list matches
 * a missing property (and NOT IN then excludes it); otherwise NOT IN keeps missing properties.
 */
function compileIn(dialect: DialectName, key: string, values: unknown[], negated: boolean): Condition {
  const text = jsonText(dialect, PROPERTIES, key);
  const texts = values.filter((v) => v !== null).map(asText);
  const hasNull = texts.length < values.length;
  const listed = texts.length > 0 ? sql<SqlBool>`${text} in (${sql.join(texts)})` : sql<SqlBool>`1 = 0`;
  if (!negated) return hasNull ? sql<SqlBool>`(${listed} or ${text} is null)` : sql<SqlBool>`(${listed})`;
  return hasNull ? sql<SqlBool>`(${text} is not null and not ${listed})` : sql<SqlBool>`(${text} is null or not ${listed})`;
}

function regexCheck(condition: PropertyCondition, values: unknown[]): RegexCheck {
  const patterns = values.map((value) => {
    // `match(x, NULL)` is NULL: no match for regex, a match for not_regex (the ifNull default).
    if (value === null) return null;
    const pattern = pythonStr(value);
    const regex = compileLinearRegex(pattern);
    if (!regex) throw validationError(`Invalid regular expression: ${pattern}`, 'properties');
    return regex;
  });
  const negated = condition.operator === 'not_regex';
  const one = (regex: LinearRegex | null, text: string | null) => {
    if (text === null || regex === null) return negated;
    return regex.test(text) !== negated;
  };
  return {
    key: condition.key,
    // Several patterns: any of them (regex), none of them (not_regex).
    test: (text) => (negated ? patterns.every((r) => one(r, text)) : patterns.some((r) => one(r, text))),
  };
}

/** One property filter of the `properties` parameter. */
export function compileCondition(dialect: DialectName, condition: PropertyCondition): Compiled {
  const { operator } = condition;
  let values: unknown[] = [condition.value];
  if (Array.isArray(condition.value) && operator !== 'between' && operator !== 'not_between') {
    values = condition.value;
    if (values.length === 0) return { all: true };
    if (values.length > 1 && (operator === 'exact' || operator === 'in')) return { sql: compileIn(dialect, condition.key, values, false) };
    if (values.length > 1 && (operator === 'is_not' || operator === 'not_in')) return { sql: compileIn(dialect, condition.key, values, true) };
  } else if (operator === 'in' || operator === 'not_in') {
    return { sql: compileIn(dialect, condition.key, values, operator === 'not_in') };
  }
  if (operator === 'regex' || operator === 'not_regex') return { regex: regexCheck(condition, values) };
  const each = values.map((value) => compileOne(dialect, condition, value));
  if (each.length === 1) return { sql: each[0]! };
  const negative = operator === 'not_icontains' || operator === 'is_not';
  return { sql: sql<SqlBool>`(${sql.join(each, negative ? sql` and ` : sql` or `)})` };
}
