import { compileClickHouseRegex } from '../lib/linear-regex.js';
import { ch, join, raw, type ChSql } from '../platform/analytics/sql.js';
import { MEDIUM_TYPES, SEARCH_CCTLD_PATTERN, SOURCE_TYPES, type ChannelEntry } from './channel-definitions.js';
import { DEFAULT_CHANNEL_RULES, type ChannelInput, type ChannelOutcome, type ChannelTest } from './channel-rules.js';
import { containsPattern, type CustomChannelField, type CustomChannelOperator, type CustomChannelRule } from './channel-type.js';

/**
 * PostHog's `$channel_type` as one ClickHouse expression: the team's custom rules, then the built-in
 * rules of channel-rules.ts, printed here as channel-type.ts
 * evaluates them. The lookup tables become `transform` arrays (a hash lookup per row, in place of
 * PostHog's dictionary).
 */

/** SQL expressions of a session's entry values, each NULL when missing (never `''`). */
export interface ChannelColumns {
  utm_source: string;
  utm_medium: string;
  utm_campaign: string;
  referring_domain: string;
  /** Whether the entry had a gclid (an fbclid): booleans, as PostHog's tuple keeps them. */
  has_gclid: string;
  has_fbclid: string;
  gad_source: string;
  /** Read only when a custom rule tests the URL, its host or path (channelTypeReadsUrl). */
  url: string;
}

/** A string of Hoglet's own as a ClickHouse literal (the tables and patterns; a user's value is bound instead). */
function literal(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const array = (values: readonly string[]) => `[${values.map(literal).join(', ')}]`;

/** `transform` over a table's entries of one side (paid or organic); `''` when the key is not listed. */
function tableLookup(table: Record<string, ChannelEntry>, key: string, paid: boolean): string {
  const entries = Object.entries(table).filter(([, entry]) => entry[paid ? 0 : 1] !== null);
  const keys = array(entries.map(([k]) => k));
  const types = array(entries.map(([, entry]) => entry[paid ? 0 : 1]!));
  return `nullIf(transform(${key}, ${keys}, ${types}, ''), '')`;
}

function lookupSql(table: 'source' | 'medium', value: string, paid: boolean): string {
  const key = `ifNull(${value}, '')`;
  if (table === 'medium') return tableLookup(MEDIUM_TYPES, key, paid);
  const cut = `cutToFirstSignificantSubdomain(${key})`;
  return `coalesce(${tableLookup(SOURCE_TYPES, key, paid)}, ${tableLookup(SOURCE_TYPES, cut, paid)},
    if(match(${cut}, ${literal(SEARCH_CCTLD_PATTERN)}), ${literal(paid ? 'Paid Search' : 'Organic Search')}, NULL))`;
}

type Inputs = Record<ChannelInput, string> & { has_gclid: string; has_fbclid: string };

function testSql(t: ChannelTest, inputs: Inputs): string {
  if ('any' in t) return `(${t.any.map((x) => testSql(x, inputs)).join(' OR ')})`;
  if ('all' in t) return `(${t.all.map((x) => testSql(x, inputs)).join(' AND ')})`;
  if ('flag' in t) return t.is ? inputs[t.flag] : `NOT ${inputs[t.flag]}`;
  const value = inputs[t.input];
  if ('missing' in t) return `(${value} IS NULL)`;
  if ('present' in t) return `(${value} IS NOT NULL)`;
  if ('matches' in t) return `match(${value}, ${literal(t.matches)})`;
  if ('oneOf' in t) return `(${value} IN (${t.oneOf.map(literal).join(', ')}))`;
  if ('startsWith' in t) return `startsWith(${value}, ${literal(t.startsWith)})`;
  return `(${value} = ${literal(t.equals)})`;
}

function outcomeSql(o: ChannelOutcome, inputs: Inputs): string {
  if ('channel' in o) return literal(o.channel);
  if ('lookup' in o) return lookupSql(o.lookup, inputs[o.of], o.paid);
  if ('when' in o) return `if(${testSql(o.when, inputs)}, ${outcomeSql(o.then, inputs)}, NULL)`;
  if ('first' in o) return `coalesce(${o.first.map((x) => outcomeSql(x, inputs)).join(',\n    ')})`;
  const cases = o.cases.map(([when, then]) => `${testSql(when, inputs)}, ${outcomeSql(then, inputs)}`);
  return `multiIf(${[...cases, outcomeSql(o.otherwise, inputs)].join(',\n  ')})`;
}

const missingIfEmpty = (x: string) => `nullIf(nullIf(${x}, ''), 'null')`;

/** Built once per set of column expressions: callers pass the same few. */
const builtInSql = new Map<string, string>();

/** The built-in rules over the session's entry values (the URL is not read). */
export function defaultChannelTypeSql(columns: ChannelColumns): string {
  const key = JSON.stringify([
    columns.utm_source,
    columns.utm_medium,
    columns.utm_campaign,
    columns.referring_domain,
    columns.has_gclid,
    columns.has_fbclid,
    columns.gad_source,
  ]);
  let sql = builtInSql.get(key);
  if (sql === undefined) {
    sql = buildDefaultChannelTypeSql(columns);
    builtInSql.set(key, sql);
  }
  return sql;
}

function buildDefaultChannelTypeSql(columns: ChannelColumns): string {
  const inputs: Inputs = {
    source: `lower(${missingIfEmpty(columns.utm_source)})`,
    medium: `lower(${missingIfEmpty(columns.utm_medium)})`,
    campaign: `lower(${missingIfEmpty(columns.utm_campaign)})`,
    referring_domain: columns.referring_domain,
    gad_source: missingIfEmpty(columns.gad_source),
    has_gclid: `(${columns.has_gclid})`,
    has_fbclid: `(${columns.has_fbclid})`,
  };
  return outcomeSql(DEFAULT_CHANNEL_RULES, inputs);
}

const URL_FIELDS: readonly CustomChannelField[] = ['url', 'hostname', 'pathname'];

/** Whether the rules read the entry URL (so the caller merges it only then). */
export function channelTypeReadsUrl(rules: readonly CustomChannelRule[]): boolean {
  return rules.some((rule) => rule.items.some((item) => URL_FIELDS.includes(item.key)));
}

function fieldSql(columns: ChannelColumns, key: CustomChannelField): string {
  switch (key) {
    case 'utm_source':
      return columns.utm_source;
    case 'utm_medium':
      return columns.utm_medium;
    case 'utm_campaign':
      return columns.utm_campaign;
    case 'referring_domain':
      return columns.referring_domain;
    case 'url':
      return columns.url;
    case 'hostname':
      return `nullIf(domain(${columns.url}), '')`;
    case 'pathname':
      return `nullIf(path(${columns.url}), '')`;
  }
}

/** One condition; a NULL value makes it NULL (false in `multiIf`) but for is_not_set and not_regex. */
function conditionSql(field: string, op: CustomChannelOperator, operand: string | null | undefined): ChSql {
  const value = raw(field);
  switch (op) {
    case 'exact':
      return typeof operand === 'string' ? ch`(${value} = ${operand})` : raw('0');
    case 'is_not':
      return typeof operand === 'string' ? ch`(${value} != ${operand})` : raw('0');
    case 'is_set':
      return ch`(${value} IS NOT NULL)`;
    case 'is_not_set':
      return ch`(${value} IS NULL)`;
    // PostHog's `ilike(x, '%value%')`: `%` and `_` in the value are wildcards, `\` escapes them.
    case 'icontains':
      return ch`ilike(${value}, ${containsPattern(operand)})`;
    case 'not_icontains':
      return ch`(NOT ilike(${value}, ${containsPattern(operand)}))`;
    case 'regex':
    case 'not_regex': {
      // An invalid pattern is as a missing value (ClickHouse would refuse the whole query).
      const pattern = operand ?? '';
      if (compileClickHouseRegex(pattern) === null) return raw(op === 'regex' ? '0' : '1');
      return op === 'regex' ? ch`ifNull(match(${value}, ${pattern}), 0)` : ch`ifNull(NOT match(${value}, ${pattern}), 1)`;
    }
  }
}

function ruleSql(rule: CustomChannelRule, columns: ChannelColumns): ChSql {
  const conditions: ChSql[] = [];
  for (const item of rule.items) {
    const field = fieldSql(columns, item.key);
    if (Array.isArray(item.value)) {
      if (item.value.length === 0) continue;
      conditions.push(
        ch`(${join(
          item.value.map((v) => conditionSql(field, item.op, v)),
          ' OR ',
        )})`,
      );
    } else {
      conditions.push(conditionSql(field, item.op, item.value));
    }
  }
  if (conditions.length === 0) return raw('1');
  return ch`(${join(conditions, rule.combiner === 'OR' ? ' OR ' : ' AND ')})`;
}

/** The channel type: the first custom rule that matches, else the built-in rules. */
export function channelTypeSql(columns: ChannelColumns, rules: readonly CustomChannelRule[]): ChSql {
  const builtIn = raw(defaultChannelTypeSql(columns));
  if (rules.length === 0) return builtIn;
  const cases = rules.map((rule) => ch`${ruleSql(rule, columns)}, ${rule.channel_type}`);
  return ch`coalesce(multiIf(${join(cases)}, NULL), ${builtIn})`;
}
