/**
 * The flag list's query parameters, as PostHog's FeatureFlagViewSet applies them
 * (`_apply_filters`, `filter_flags_by_active_param`, and `order` in `safely_get_queryset`).
 * Hoglet filters the project's (non-deleted) flags in memory, newest first, then paginates.
 */
import { validationError } from '../posthog/errors.js';
import { isJsonObject } from '../lib/json-object.js';
import { pythonStr } from '../posthog/python-text.js';
import type { FeatureFlag } from './store.js';
import { pythonStrip } from '../posthog/python-values.js';

type Json = Record<string, unknown>;
export type ListQuery = Record<string, string | string[] | undefined>;

const DAY_MS = 86_400_000;
const STALE_AFTER_MS = 30 * DAY_MS;
const MAX_SEARCH_LENGTH = 200;

/** Django's `request.GET.dict()` keeps the last of a repeated parameter. */
function param(query: ListQuery, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** What Django's `__in` iterates for a JSON-decoded value: list items, a string's characters, a dict's keys. */
function jsonItems(text: string): string[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // unreadable: the filter is skipped, as PostHog does
  }
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(pythonStr);
  if (typeof value === 'string') return [...value];
  if (isJsonObject(value)) return Object.keys(value);
  return undefined;
}

/** `parse_created_by_ids`: one id, a comma-separated list, or a JSON list; unreadable items are dropped. */
function createdByIds(text: string): number[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  let items: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      items = Array.isArray(parsed) ? parsed : [parsed];
    } catch {
      return [];
    }
  } else items = trimmed.split(',');
  return items.flatMap((item) => {
    if (typeof item === 'number' && Number.isFinite(item)) return [Math.trunc(item)];
    if (typeof item === 'boolean') return [Number(item)];
    if (typeof item === 'string' && /^\s*[+-]?\d+\s*$/.test(item)) return [Number(item)];
    return [];
  });
}

/** `elem->>'rollout_percentage' = '100'`: the number 100 or the text "100". */
const isHundred = (value: unknown) => value === 100 || value === '100';

/** A release condition for everyone: rollout 100 and an empty property list. */
const fullCondition = (group: unknown): group is Json =>
  isJsonObject(group) && isHundred(group.rollout_percentage) && Array.isArray(group.properties) && group.properties.length === 0;

/**
 * The configuration half of PostHog's STALE filter (a flag never called and 30+ days old counts
 * when it is fully rolled out): a boolean flag with a condition for everyone; a multivariate flag
 * with a variant at 100% and such a condition, or such a condition overriding the variant; or a
 * flag without filters. Hoglet records no `last_called_at`, so the usage half (no call in 30 days)
 * never applies: every flag is one PostHog has not seen called.
 */
function fullyRolledOut(filters: Json): boolean {
  if (Object.keys(filters).length === 0) return true;
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  const hasFullCondition = groups.some(fullCondition);
  const multivariate = filters.multivariate;
  const variants = isJsonObject(multivariate) && Array.isArray(multivariate.variants) ? multivariate.variants : undefined;
  const noVariants =
    multivariate === undefined ||
    multivariate === null ||
    (isJsonObject(multivariate) && Object.keys(multivariate).length === 0) ||
    variants?.length === 0;
  if (hasFullCondition && noVariants) return true;
  if (hasFullCondition && variants?.some((variant) => isJsonObject(variant) && isHundred(variant.rollout_percentage))) return true;
  const overridden = groups.some((group) => fullCondition(group) && group.variant !== undefined && group.variant !== null);
  return overridden && variants !== undefined && variants.length > 0;
}

export function isStale(flag: FeatureFlag, now = Date.now()): boolean {
  return flag.active && Date.parse(flag.createdAt) < now - STALE_AFTER_MS && fullyRolledOut(flag.filters);
}

/** `type=boolean` also takes flags whose multivariate has no `variants` key or an empty list. */
function isMultivariant(flag: FeatureFlag): boolean {
  const multivariate = flag.filters.multivariate;
  if (!isJsonObject(multivariate) || !('variants' in multivariate)) return false;
  return !(Array.isArray(multivariate.variants) && multivariate.variants.length === 0);
}

/**
 * PostHog's search: a case-insensitive regex on key and name in which each space of the term
 * becomes `[\s\-_]*` (so a space also matches "-", "_" or nothing). The term's words, lower-cased.
 */
function searchWords(raw: string): string[] | undefined {
  const text = pythonStrip(raw);
  if (text === '') return undefined;
  if (text.length > MAX_SEARCH_LENGTH) throw validationError('Search term cannot exceed 200 characters');
  return text.toLowerCase().split(/ +/);
}

const GAP = /[\s\-_]/;

/**
 * Whether `words`, separated by runs of gap characters (or nothing), occur in `text`. Matched
 * without a regex: a pattern of starred gaps between words that are themselves gap characters
 * ("a - - b") backtracks exponentially, and the term comes from the client.
 */
export function matchesSearch(text: string, words: readonly string[]): boolean {
  const haystack = text.toLowerCase();
  // Where the words so far can end; each next word may start after any run of gap characters.
  let ends: number[] = [];
  for (let at = haystack.indexOf(words[0]!); at !== -1; at = haystack.indexOf(words[0]!, at + 1)) ends.push(at + words[0]!.length);
  for (let w = 1; w < words.length && ends.length > 0; w++) {
    const word = words[w]!;
    const next = new Set<number>();
    const tried = new Set<number>();
    for (const end of ends) {
      for (let start = end; start <= haystack.length && !tried.has(start); start++) {
        tried.add(start);
        if (haystack.startsWith(word, start)) next.add(start + word.length);
        if (start === haystack.length || !GAP.test(haystack[start]!)) break;
      }
    }
    ends = [...next];
  }
  return ends.length > 0;
}

type Predicate = (flag: FeatureFlag) => boolean;

/** One predicate per parameter present; unknown values behave as in PostHog. */
function predicates(query: ListQuery): Predicate[] {
  const checks: Predicate[] = [];
  const active = param(query, 'active');
  // Anything but "true" or "STALE" (even "false" spelt otherwise) means inactive flags.
  if (active === 'STALE') checks.push((flag) => isStale(flag));
  else if (active !== undefined) checks.push((flag) => flag.active === (active === 'true'));
  const archived = param(query, 'archived');
  if (archived !== undefined && archived.toLowerCase() === 'true') checks.push(() => false); // Hoglet archives nothing
  const createdBy = param(query, 'created_by_id');
  const creators = createdBy === undefined ? [] : createdByIds(createdBy);
  if (creators.length > 0) checks.push((flag) => flag.createdById !== null && creators.includes(flag.createdById));
  const search = param(query, 'search');
  const words = search === undefined ? undefined : searchWords(search);
  if (words) checks.push((flag) => matchesSearch(flag.key, words) || matchesSearch(flag.name, words));
  const type = param(query, 'type');
  if (type === 'boolean') checks.push((flag) => !isMultivariant(flag));
  if (type === 'multivariant') checks.push(isMultivariant);
  if (type === 'experiment') checks.push(() => false); // Hoglet has no experiments
  if (type === 'remote_config') checks.push((flag) => flag.isRemoteConfiguration);
  const runtime = param(query, 'evaluation_runtime');
  if (runtime !== undefined) checks.push((flag) => flag.evaluationRuntime === runtime);
  const excluded = param(query, 'excluded_properties');
  const excludedKeys = excluded === undefined ? undefined : jsonItems(excluded);
  if (excludedKeys?.length) checks.push((flag) => !excludedKeys.includes(flag.key));
  const tags = param(query, 'tags');
  const wanted = tags === undefined ? undefined : jsonItems(tags);
  if (wanted?.length) checks.push((flag) => flag.tags.some((tag) => wanted.includes(tag)));
  const excludedTags = param(query, 'excluded_tags');
  const unwanted = excludedTags === undefined ? undefined : jsonItems(excludedTags);
  if (unwanted?.length) checks.push((flag) => !flag.tags.some((tag) => unwanted.includes(tag)));
  const contexts = param(query, 'has_evaluation_contexts');
  // Hoglet keeps no evaluation contexts: asking for flags with some finds none. Read as
  // FeatureFlagViewSet._apply_filters (posthog/api/feature_flag.py) reads its evaluation-tag
  // filter, `str(value).lower() in ("true", "1", "yes")`: not DRF's BooleanField nor
  // `str_to_bool`, which take more spellings.
  if (contexts !== undefined && ['true', '1', 'yes'].includes(contexts.toLowerCase())) checks.push(() => false);
  return checks;
}

/** Fields `order` may name (optionally with "-"), read from the stored flag. */
const ORDER_FIELDS: Record<string, (flag: FeatureFlag) => string | number | boolean> = {
  id: (flag) => flag.id,
  key: (flag) => flag.key,
  name: (flag) => flag.name,
  created_at: (flag) => Date.parse(flag.createdAt),
  updated_at: (flag) => Date.parse(flag.updatedAt),
  active: (flag) => flag.active,
  version: (flag) => flag.version,
  evaluation_runtime: (flag) => flag.evaluationRuntime,
};

/**
 * `order_by(order)`: a stable sort, so ties keep the default newest-first order. PostHog answers an
 * unknown field with a server error; Hoglet keeps the default order instead.
 */
function ordered(flags: FeatureFlag[], order: string | undefined): FeatureFlag[] {
  if (!order) return flags;
  const descending = order.startsWith('-');
  const field = descending ? order.slice(1) : order;
  if (!Object.hasOwn(ORDER_FIELDS, field)) return flags;
  const read = ORDER_FIELDS[field]!;
  const sign = descending ? -1 : 1;
  return [...flags].sort((a, b) => {
    const [x, y] = [read(a), read(b)];
    return x === y ? 0 : x < y ? -sign : sign;
  });
}

/** The flags the list shows for these parameters, in the order asked for. */
export function applyListQuery(flags: FeatureFlag[], query: ListQuery): FeatureFlag[] {
  const checks = predicates(query);
  return ordered(
    flags.filter((flag) => checks.every((check) => check(flag))),
    param(query, 'order'),
  );
}
