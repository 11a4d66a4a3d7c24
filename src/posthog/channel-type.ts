/**
 * PostHog's `$channel_type` evaluated in TypeScript: the team's custom channel rules first (the
 * `customChannelTypeRules` modifier, first match wins), then the built-in rules of
 * channel-rules.ts. channel-type-sql.ts prints the same rules for ClickHouse.
 *
 * Inputs are the session's entry attribution: utm source/medium/campaign, entry referring domain (as
 * stored: `'$direct'` when there was no referrer), whether a gclid / fbclid was present, `gad_source`,
 * and for custom rules the entry URL, its host and path.
 */
import { isJsonObject } from '../lib/json-object.js';
import { compileClickHouseRegex } from '../lib/linear-regex.js';
import type { BASIC_PROPERTY_OPERATORS } from './property-operators.js';
import { cutToFirstSignificantSubdomain, MEDIUM_TYPES, SEARCH_CCTLD_PATTERN, SOURCE_TYPES } from './channel-definitions.js';
import { DEFAULT_CHANNEL_RULES, type ChannelFlag, type ChannelInput, type ChannelOutcome, type ChannelTest } from './channel-rules.js';

export { cutToFirstSignificantSubdomain } from './channel-definitions.js';

export const DEFAULT_CHANNEL_TYPES = [
  'Cross Network',
  'Paid Search',
  'Paid Social',
  'Paid Video',
  'Paid Shopping',
  'Paid Unknown',
  'Direct',
  'Organic Search',
  'Organic Social',
  'Organic Video',
  'Organic Shopping',
  'Push',
  'SMS',
  'Audio',
  'Email',
  'Referral',
  'Affiliate',
  'Unknown',
] as const;

export interface ChannelInputs {
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  referringDomain?: string | null;
  url?: string | null;
  hostname?: string | null;
  pathname?: string | null;
  hasGclid?: boolean;
  hasFbclid?: boolean;
  gadSource?: string | null;
}

export const CUSTOM_CHANNEL_FIELDS = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'url',
  'hostname',
  'pathname',
  'referring_domain',
] as const;
export type CustomChannelField = (typeof CUSTOM_CHANNEL_FIELDS)[number];
/** The basic operators but the numeric comparisons, which channel rules do not offer. */
export type CustomChannelOperator = Exclude<(typeof BASIC_PROPERTY_OPERATORS)[number], 'gt' | 'gte' | 'lt' | 'lte'>;
const CUSTOM_CHANNEL_OPERATORS: readonly CustomChannelOperator[] = [
  'exact',
  'is_not',
  'is_set',
  'is_not_set',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
];

/** A team modifier `customChannelTypeRules` entry. */
export interface CustomChannelRule {
  id?: string;
  channel_type: string;
  combiner: 'AND' | 'OR';
  items: { key: CustomChannelField; op: CustomChannelOperator; value?: string | string[] | null }[];
}

/**
 * The rules a query runs with: its own `modifiers.customChannelTypeRules` when it sets them (even
 * to none), the environment's otherwise (PostHog's create_default_modifiers_for_team: a team
 * modifier fills only what the query leaves unset).
 */
export function queryChannelRules(query: unknown, teamModifiers: unknown): CustomChannelRule[] {
  const own = isJsonObject(query) && isJsonObject(query.modifiers) ? query.modifiers : undefined;
  const set = own?.customChannelTypeRules !== undefined && own.customChannelTypeRules !== null;
  return readCustomChannelRules(set ? own : teamModifiers);
}

/**
 * The `customChannelTypeRules` of a team's modifiers as stored (any JSON): rules of another shape are
 * left out rather than failing every query that reads the channel type.
 */
export function readCustomChannelRules(modifiers: unknown): CustomChannelRule[] {
  const value = isJsonObject(modifiers) ? modifiers.customChannelTypeRules : undefined;
  if (!Array.isArray(value)) return [];
  const rules: CustomChannelRule[] = [];
  for (const rule of value) {
    if (!isJsonObject(rule) || typeof rule.channel_type !== 'string' || !Array.isArray(rule.items)) continue;
    const items: CustomChannelRule['items'] = [];
    let valid = true;
    for (const item of rule.items) {
      const operand = isJsonObject(item) ? item.value : undefined;
      const operandValid =
        operand === undefined ||
        operand === null ||
        typeof operand === 'string' ||
        (Array.isArray(operand) && operand.every((v) => typeof v === 'string'));
      if (
        !isJsonObject(item) ||
        !(CUSTOM_CHANNEL_FIELDS as readonly unknown[]).includes(item.key) ||
        !(CUSTOM_CHANNEL_OPERATORS as readonly unknown[]).includes(item.op) ||
        !operandValid
      ) {
        valid = false;
        break;
      }
      items.push({ key: item.key as CustomChannelField, op: item.op as CustomChannelOperator, value: operand as string | string[] | null });
    }
    if (!valid) continue;
    rules.push({
      ...(typeof rule.id === 'string' ? { id: rule.id } : {}),
      channel_type: rule.channel_type,
      combiner: rule.combiner === 'OR' ? 'OR' : 'AND',
      items,
    });
  }
  return rules;
}

/** ClickHouse's `lower`: ASCII letters only. */
export function lowerAscii(value: string): string {
  return value.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** `nullIf(nullIf(x, ''), 'null')` */
function missingIfEmpty(value: string | null | undefined): string | null {
  return value === null || value === undefined || value === '' || value === 'null' ? null : value;
}

interface RuleValues {
  inputs: Record<ChannelInput, string | null>;
  flags: Record<ChannelFlag, boolean>;
}

function test(t: ChannelTest, values: RuleValues): boolean {
  if ('any' in t) return t.any.some((x) => test(x, values));
  if ('all' in t) return t.all.every((x) => test(x, values));
  if ('flag' in t) return values.flags[t.flag] === t.is;
  const value = values.inputs[t.input];
  if ('missing' in t) return value === null;
  if (value === null) return false;
  if ('present' in t) return true;
  if ('matches' in t) return compileClickHouseRegex(t.matches)?.test(value) === true;
  if ('oneOf' in t) return t.oneOf.includes(value);
  if ('startsWith' in t) return value.startsWith(t.startsWith);
  return value === t.equals;
}

const SEARCH_CCTLD = new RegExp(SEARCH_CCTLD_PATTERN);

function lookup(table: 'source' | 'medium', value: string | null, paid: boolean): string | null {
  if (value === null) return null;
  const which = paid ? 0 : 1;
  if (table === 'medium') return (Object.hasOwn(MEDIUM_TYPES, value) ? MEDIUM_TYPES[value]?.[which] : null) ?? null;
  const exact = Object.hasOwn(SOURCE_TYPES, value) ? SOURCE_TYPES[value]?.[which] : null;
  if (exact) return exact;
  const cut = cutToFirstSignificantSubdomain(value);
  const viaCut = Object.hasOwn(SOURCE_TYPES, cut) ? SOURCE_TYPES[cut]?.[which] : null;
  if (viaCut) return viaCut;
  if (SEARCH_CCTLD.test(cut)) return paid ? 'Paid Search' : 'Organic Search';
  return null;
}

function outcome(o: ChannelOutcome, values: RuleValues): string | null {
  if ('channel' in o) return o.channel;
  if ('lookup' in o) return lookup(o.lookup, values.inputs[o.of], o.paid);
  if ('when' in o) return test(o.when, values) ? outcome(o.then, values) : null;
  if ('first' in o) {
    for (const x of o.first) {
      const found = outcome(x, values);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [when, then] of o.cases) if (test(when, values)) return outcome(then, values);
  return outcome(o.otherwise, values);
}

/** The built-in channel rules. */
export function defaultChannelType(inputs: ChannelInputs): (typeof DEFAULT_CHANNEL_TYPES)[number] | 'Display' {
  const lowered = (v: string | null | undefined) => {
    const value = missingIfEmpty(v);
    return value === null ? null : lowerAscii(value);
  };
  const values: RuleValues = {
    inputs: {
      source: lowered(inputs.utmSource),
      medium: lowered(inputs.utmMedium),
      campaign: lowered(inputs.utmCampaign),
      referring_domain: inputs.referringDomain ?? null,
      gad_source: missingIfEmpty(inputs.gadSource),
    },
    flags: { has_gclid: inputs.hasGclid === true, has_fbclid: inputs.hasFbclid === true },
  };
  // The rules end in a channel whatever the inputs.
  return (outcome(DEFAULT_CHANNEL_RULES, values) ?? 'Unknown') as (typeof DEFAULT_CHANNEL_TYPES)[number] | 'Display';
}

function fieldValue(inputs: ChannelInputs, key: CustomChannelField): string | null {
  const pick = (v: string | null | undefined) => (v === undefined || v === '' ? null : v);
  switch (key) {
    case 'utm_source':
      return pick(inputs.utmSource);
    case 'utm_medium':
      return pick(inputs.utmMedium);
    case 'utm_campaign':
      return pick(inputs.utmCampaign);
    case 'url':
      return pick(inputs.url);
    case 'hostname':
      return pick(inputs.hostname);
    case 'pathname':
      return pick(inputs.pathname);
    case 'referring_domain':
      return pick(inputs.referringDomain);
    default:
      return null;
  }
}

/** The `ilike` pattern of PostHog's `icontains`: the value between `%`s, its own `%` and `_` wildcards too. */
export function containsPattern(operand: string | null | undefined): string {
  return `%${operand ?? ''}%`;
}

const likeRegexes = new Map<string, RegExp>();

/**
 * ClickHouse's `ilike` as a regular expression: `%` any text, `_` any one character, `\\` before
 * `%`, `_` or `\\` that character itself (before another, a backslash of its own); case-insensitive.
 */
function likeRegex(pattern: string): RegExp {
  let regex = likeRegexes.get(pattern);
  if (regex) return regex;
  let source = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length && '%_\\'.includes(chars[i + 1]!)) source += escapeRegex(chars[++i]!);
    else if (c === '%') source += '.*';
    else if (c === '_') source += '.';
    else source += escapeRegex(c);
  }
  regex = new RegExp(`^${source}$`, 'isu');
  if (likeRegexes.size >= 1000) likeRegexes.clear();
  likeRegexes.set(pattern, regex);
  return regex;
}

function escapeRegex(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** One condition with ClickHouse NULL semantics (a NULL comparison is false in `multiIf`). */
function condition(value: string | null, op: CustomChannelOperator, operand: string | null | undefined): boolean {
  switch (op) {
    case 'exact':
      return value !== null && typeof operand === 'string' && value === operand;
    case 'is_not':
      return value !== null && typeof operand === 'string' && value !== operand;
    case 'is_set':
      return value !== null;
    case 'is_not_set':
      return value === null;
    case 'icontains':
      return value !== null && likeRegex(containsPattern(operand)).test(value);
    case 'not_icontains':
      return value !== null && !likeRegex(containsPattern(operand)).test(value);
    case 'regex':
    case 'not_regex': {
      // ClickHouse's match: RE2, linear time; an invalid pattern is as a missing value.
      const regex = compileClickHouseRegex(String(operand ?? ''));
      const hit = value === null || regex === null ? null : regex.test(value);
      if (op === 'regex') return hit === true;
      return hit === null ? true : !hit;
    }
    default:
      return false;
  }
}

function ruleMatches(rule: CustomChannelRule, inputs: ChannelInputs): boolean {
  const results: boolean[] = [];
  for (const item of rule.items ?? []) {
    const value = fieldValue(inputs, item.key);
    if (Array.isArray(item.value)) {
      if (item.value.length === 0) continue;
      results.push(item.value.some((v) => condition(value, item.op, v)));
    } else {
      results.push(condition(value, item.op, item.value));
    }
  }
  if (results.length === 0) return true;
  return rule.combiner === 'OR' ? results.some(Boolean) : results.every(Boolean);
}

/** Custom rules first (first match wins), then the built-in rules. */
export function channelType(inputs: ChannelInputs, customRules: readonly CustomChannelRule[] = []): string {
  for (const rule of customRules) {
    if (ruleMatches(rule, inputs)) return rule.channel_type;
  }
  return defaultChannelType(inputs);
}
