/**
 * PostHog property filters (`{key, value, operator}`) as SQL over a JSON properties column, with
 * the answers HogQL gives (`property_to_expr` and `_expr_to_compare_op`, printed for ClickHouse):
 * the one compiler of the persons list (persons' properties) and the events list (events' and
 * their persons' properties).
 *
 * - a property is its value as text (`true`/`false`, digits), NULL when missing or JSON null;
 * - positive comparisons (exact, icontains, gt, in, regex, …) never match NULL, negative ones
 *   (is_not, not_icontains, not_regex, not_in) always do: the printer wraps them in
 *   `ifNull(…, 0)` and `ifNull(…, 1)`;
 * - a list value is IN / NOT IN for exact / is_not, otherwise one comparison per value, ORed
 *   (ANDed for the negative ones); an empty list filters nothing, a one-value list is the value.
 *
 * The conditions read the JSON the same way on SQLite and PostgreSQL (platform/db/json-path.ts) and differ
 * only where the dialects do (case folding, text order, regular expressions: see regexMatches).
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../platform/db/database.js';
import { jsonNumber, jsonText } from '../platform/db/json-path.js';
import { OPERATOR_COMPARISONS, type PropertyOperator, type PropertyOperatorName } from './property-operators.js';
import { compileClickHouseRegex } from '../lib/linear-regex.js';
import { pythonStr } from './python-text.js';

/**
 * A property filter the SQL cannot be built from. Query-building code throws it rather than an
 * HTTP error; http/error-handler.ts answers it as the 400 PostHog gives, with attr `properties`.
 */
export class InvalidPropertyFilter extends Error {
  readonly attr = 'properties';
  constructor(readonly detail: string) {
    super(detail);
  }
}

export interface PropertyCondition {
  key: string;
  operator: PropertyOperator;
  value: unknown;
}

/** HogQL's `_validate_between_values`, with its messages. */
function checkBetween(operator: string, value: unknown): void {
  if (!Array.isArray(value) || value.length !== 2) {
    throw new InvalidPropertyFilter(`${operator} operator requires a two-element array [min, max]`);
  }
  const [low, high] = value.map((v) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN));
  if (!Number.isFinite(low) || !Number.isFinite(high)) throw new InvalidPropertyFilter(`${operator} operator requires numeric values`);
  if (low! > high!) throw new InvalidPropertyFilter(`${operator} operator requires min value to be less than or equal to max value`);
}

/**
 * A filter's key, operator and value, checked as HogQL checks them; `where` names the list in
 * the message for an operator it does not take ("the persons list").
 */
export function readPropertyCondition(filter: { key: string; operator?: unknown; value?: unknown }, where: string): PropertyCondition {
  // PostHog sets "exact" on filters sent without an operator.
  const name = filter.operator === undefined || filter.operator === null ? 'exact' : filter.operator;
  const operator =
    typeof name === 'string' && Object.hasOwn(OPERATOR_COMPARISONS, name) ? OPERATOR_COMPARISONS[name as PropertyOperatorName] : undefined;
  if (!operator) throw new InvalidPropertyFilter(`The property operator ${JSON.stringify(name)} is not supported on ${where}.`);
  if (operator === 'between' || operator === 'not_between') checkBetween(String(name), filter.value);
  // A one-value list is that value (property_to_expr), which IN cannot take.
  if ((operator === 'in' || operator === 'not_in') && (!Array.isArray(filter.value) || filter.value.length === 1)) {
    throw new InvalidPropertyFilter('IN and NOT IN operators require a list of values');
  }
  if (operator === 'regex' || operator === 'not_regex') {
    for (const value of Array.isArray(filter.value) ? filter.value : [filter.value]) {
      if (value !== null && !compileClickHouseRegex(pythonStr(value)))
        throw new InvalidPropertyFilter(`Invalid regular expression: ${pythonStr(value)}`);
    }
  }
  return { key: filter.key, operator, value: filter.value };
}

export type Condition = RawBuilder<SqlBool>;

/** A value as the text it is compared with: HogQL turns booleans into "true"/"false". */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A number for gt/lt when the value reads as one (ClickHouse converts a numeric literal). */
export function asNumber(value: unknown): number | undefined {
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

/**
 * A LIKE pattern for "contains `value`" with its wildcards taken literally (Django's icontains,
 * PostHog's escaped searches): `\`, `%` and `_` are escaped with the backslash `ilike` names.
 */
export function literalContainsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function ilike(dialect: DialectName, expression: RawBuilder<unknown>, pattern: string): Condition {
  // PostgreSQL's ILIKE folds case as ClickHouse does (Unicode); SQLite's lower() folds ASCII only.
  if (dialect === 'postgres') return sql<SqlBool>`(${expression} ilike ${pattern} escape '\\')`;
  return sql<SqlBool>`(lower(${expression}) like ${pattern} escape '\\')`;
}

function compareOperator(operator: 'gt' | 'gte' | 'lt' | 'lte') {
  return sql.raw({ gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator]);
}

/**
 * Whether the text matches the pattern (checked beforehand: readPropertyCondition), NULL for a
 * NULL text. SQLite has no regular expressions: `hoglet_regexp` is registered on every connection
 * (database.ts) and matches as ClickHouse's `match` does, with RE2's syntax in linear time
 * (lib/linear-regex.ts). PostgreSQL runs its own `~` on the pattern in its spelling
 * (postgresRegex); what it still refuses is its error 2201B, a 400 (isInvalidRegexError).
 */
export function regexMatches(dialect: DialectName, text: RawBuilder<unknown>, pattern: string): Condition {
  if (dialect === 'postgres') return sql<SqlBool>`(${text} ~ ${postgresRegex(pattern)})`;
  return sql<SqlBool>`(hoglet_regexp(${pattern}, ${text}) = 1)`;
}

/** A named group's opening, `(?P<name>` or `(?<name>` (not look-behind: RE2 has none anyway). */
const NAMED_GROUP = /\(\?P?<[A-Za-z_]\w*>/y;

/**
 * An RE2 pattern as PostgreSQL's regular expressions spell it. Both let `.` match a newline (as
 * ClickHouse's `match`) and read classes, anchors, repeats and `(?i)` at the start alike; they
 * differ in a few escapes, whose RE2 meaning would otherwise silently change: a word boundary is
 * `\b` in RE2 but a backspace in PostgreSQL (there `\y`), `\B` is `\Y`, the end of the text
 * `\z` is `\Z`. A named group `(?P<name>…)` or `(?<name>…)` is a plain group there.
 */
export function postgresRegex(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    NAMED_GROUP.lastIndex = i;
    if (ch === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      out += next === 'b' ? '\\y' : next === 'B' ? '\\Y' : next === 'z' ? '\\Z' : `\\${next}`;
    } else if (ch === '(' && NAMED_GROUP.test(pattern)) {
      out += '(';
      i = NAMED_GROUP.lastIndex - 1;
    } else {
      out += ch;
    }
  }
  return out;
}

/** PostgreSQL refused a pattern (invalid_regular_expression) that RE2 took. */
export function isInvalidRegexError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '2201B';
}

/** One comparison with one (non-list) value. */
function compileOne(dialect: DialectName, column: string, condition: PropertyCondition, value: unknown): Condition {
  const text = jsonText(dialect, column, condition.key);
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
      if (number !== undefined) return sql<SqlBool>`(${jsonNumber(dialect, column, condition.key)} ${op} ${number})`;
      // A non-numeric value (a date, say) compares as text, byte by byte as ClickHouse does.
      const collate = dialect === 'postgres' ? sql.raw(' collate "C"') : sql.raw('');
      return sql<SqlBool>`(${text} ${op} ${asText(value)}${collate})`;
    }
    case 'between':
    case 'not_between': {
      const [low, high] = (value as unknown[]).map((v) => asNumber(v)!);
      const number = jsonNumber(dialect, column, condition.key);
      return condition.operator === 'between'
        ? sql<SqlBool>`(${number} >= ${low} and ${number} <= ${high})`
        : sql<SqlBool>`(${number} < ${low} or ${number} > ${high})`;
    }
    case 'regex':
      // `match(x, NULL)` is NULL: no match for regex, a match for not_regex (the ifNull default).
      return value === null
        ? sql<SqlBool>`(1 = 0)`
        : sql<SqlBool>`(${text} is not null and ${regexMatches(dialect, text, pythonStr(value))})`;
    case 'not_regex':
      return value === null
        ? sql<SqlBool>`(1 = 1)`
        : sql<SqlBool>`(${text} is null or not ${regexMatches(dialect, text, pythonStr(value))})`;
    default:
      throw new Error(`${condition.operator} is not compiled by compileOne`);
  }
}

/**
 * IN / NOT IN over a list. ClickHouse runs with transform_null_in, so a null in the list matches
 * a missing property (and NOT IN then excludes it); otherwise NOT IN keeps missing properties.
 */
function compileIn(dialect: DialectName, column: string, key: string, values: unknown[], negated: boolean): Condition {
  const text = jsonText(dialect, column, key);
  const texts = values.filter((v) => v !== null).map(asText);
  const hasNull = texts.length < values.length;
  const listed = texts.length > 0 ? sql<SqlBool>`${text} in (${sql.join(texts)})` : sql<SqlBool>`1 = 0`;
  if (!negated) return hasNull ? sql<SqlBool>`(${listed} or ${text} is null)` : sql<SqlBool>`(${listed})`;
  return hasNull ? sql<SqlBool>`(${text} is not null and not ${listed})` : sql<SqlBool>`(${text} is null or not ${listed})`;
}

/**
 * One property filter, on the JSON properties of `column` (`p.properties`, `events.properties`):
 * its condition, or null when it filters nothing (an empty list).
 */
export function compileCondition(dialect: DialectName, condition: PropertyCondition, column: string): Condition | null {
  const { operator } = condition;
  let values: unknown[] = [condition.value];
  if (Array.isArray(condition.value) && operator !== 'between' && operator !== 'not_between') {
    values = condition.value;
    if (values.length === 0) return null;
    if (values.length > 1 && (operator === 'exact' || operator === 'in')) return compileIn(dialect, column, condition.key, values, false);
    if (values.length > 1 && (operator === 'is_not' || operator === 'not_in'))
      return compileIn(dialect, column, condition.key, values, true);
  } else if (operator === 'in' || operator === 'not_in') {
    return compileIn(dialect, column, condition.key, values, operator === 'not_in');
  }
  const each = values.map((value) => compileOne(dialect, column, condition, value));
  if (each.length === 1) return each[0]!;
  const negative = operator === 'not_icontains' || operator === 'is_not' || operator === 'not_regex';
  return sql<SqlBool>`(${sql.join(each, negative ? sql` and ` : sql` or `)})`;
}
