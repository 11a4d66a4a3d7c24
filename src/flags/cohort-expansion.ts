/**
 * The feed without `send_cohorts` carries no cohort definitions (docs/posthog-parity.md), so a
 * flag that targets one simple cohort is rewritten into person-property conditions an SDK can
 * evaluate on its own: PostHog's `FeatureFlag.transform_cohort_filters_for_easy_evaluation`, with
 * its cohort parsing (`Filter.property_groups`), `clear_excess_levels` and `Property.to_dict`.
 * Anything it cannot express is left as it was, and the SDK then asks the server.
 */
import type { Cohort } from '../cohorts/store.js';
import { pyInt, strToBool } from '../posthog/python-values.js';

type Json = Record<string, unknown>;

interface Group {
  type: 'AND' | 'OR';
  values: Node[];
}
type Node = Group | Json;

const isGroup = (node: Node): node is Group => Array.isArray(node.values) && (node.type === 'AND' || node.type === 'OR');

/** Python's `int()` on a stored cohort id; null where Python would raise. */
function cohortIdOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  return typeof value === 'string' ? pyInt(value) : null;
}

/**
 * `Filter._parse_property_group`: a `{type, values}` dict is a group whose values are all groups or
 * all properties; anything else is an empty AND group. PostHog upper-cases the type.
 */
function parseGroup(raw: unknown): Group {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { type: 'AND', values: [] };
  const group = raw as Json;
  if (typeof group.type !== 'string' || !Array.isArray(group.values)) return { type: 'AND', values: [] };
  const type = group.type.toUpperCase() === 'OR' ? 'OR' : 'AND';
  const values = (group.values as unknown[]).filter((v): v is Json => !!v && typeof v === 'object' && !Array.isArray(v));
  const nested = values.some((v) => typeof v.type === 'string' && ['AND', 'OR'].includes(v.type.toUpperCase()) && Array.isArray(v.values));
  return { type, values: nested ? values.map(parseGroup) : values };
}

function flat(node: Node): Json[] {
  return isGroup(node) ? node.values.flatMap(flat) : [node];
}

/** `clear_excess_levels`: one-child groups collapse into their child, except directly under a many-child group. */
function clearExcessLevels(node: Node, skip = false): Node {
  if (!isGroup(node)) return node;
  if (node.values.length === 1) {
    return skip ? { type: node.type, values: [clearExcessLevels(node.values[0]!)] } : clearExcessLevels(node.values[0]!);
  }
  return { type: node.type, values: node.values.map((child) => clearExcessLevels(child, true)) };
}

/** `Property.to_dict`: the set attributes of `Property`, in its attribute order, without unknown keys. */
const PROPERTY_ATTRIBUTES = [
  'key',
  'operator',
  'type',
  'group_type_index',
  'event_type',
  'operator_value',
  'time_value',
  'time_interval',
  'explicit_datetime',
  'total_periods',
  'min_periods',
  'seq_event_type',
  'seq_event',
  'seq_time_value',
  'seq_time_interval',
  'negation',
  'event_filters',
  'value',
] as const;

function propertyToDict(raw: Json): Json {
  const property: Json = { ...raw, type: raw.type || 'event' };
  if (property.negation !== undefined && property.negation !== null) property.negation = strToBool(property.negation);
  if ((property.value === undefined || property.value === null) && ['is_set', 'is_not_set'].includes(String(property.operator))) {
    property.value = property.operator;
  }
  const dict: Json = {};
  for (const attribute of PROPERTY_ATTRIBUTES) {
    if (property[attribute] !== undefined && property[attribute] !== null) dict[attribute] = property[attribute];
  }
  return dict;
}

function cohortProperties(condition: Json): Json[] {
  return (Array.isArray(condition.properties) ? (condition.properties as Json[]) : []).filter((p) => p?.type === 'cohort');
}

/**
 * `FeatureFlag.get_cohort_ids`: the live cohorts the conditions name, with every cohort those
 * reference in turn; missing and deleted ones are skipped.
 */
function cohortIds(conditions: Json[], live: ReadonlyMap<number, Cohort>): Set<number> {
  const found = new Set<number>();
  const visit = (id: number | null) => {
    const cohort = id === null ? undefined : live.get(id);
    if (!cohort || found.has(cohort.id)) return;
    found.add(cohort.id);
    for (const nested of flat(parseGroup(cohort.filters?.properties))) if (nested.type === 'cohort') visit(cohortIdOf(nested.value));
  };
  for (const condition of conditions) for (const property of cohortProperties(condition)) visit(cohortIdOf(property.value));
  return found;
}

/** The rewritten `groups`, or the flag's own when the cohort cannot be expressed as conditions. */
export function expandSimpleCohort(conditions: Json[], live: ReadonlyMap<number, Cohort>): Json[] {
  if (cohortIds(conditions, live).size !== 1) return conditions;
  // PostHog reads the rollout of every condition in turn, so the expansion takes the last one's.
  let rollout: unknown = null;
  let cohort: Cohort | undefined;
  const parsed: Json[] = [];
  for (const condition of conditions) {
    if (condition.variant) return conditions;
    const properties = Array.isArray(condition.properties) ? (condition.properties as Json[]) : [];
    rollout = condition.rollout_percentage ?? null;
    let cohortCondition = false;
    for (const property of properties) {
      if (property?.type !== 'cohort') continue;
      cohortCondition = true;
      const id = cohortIdOf(property.value);
      if (id === null) return conditions;
      if (id !== 0) {
        if (properties.length > 1) return conditions;
        cohort = live.get(id);
        if (!cohort) return conditions;
      }
    }
    if (!cohortCondition) parsed.push(condition);
  }
  if (!cohort) return conditions;
  const definition = parseGroup(cohort.filters?.properties);
  const leaves = flat(definition);
  if (leaves.length === 0 || !leaves.every((p) => p.type === 'person') || leaves.some((p) => p.negation != null && strToBool(p.negation))) {
    return conditions;
  }
  const target = clearExcessLevels(definition);
  const condition = (properties: Json[]) => ({ properties: properties.map(propertyToDict), rollout_percentage: rollout });
  if (!isGroup(target)) {
    parsed.push(condition([target]));
  } else if (!isGroup(target.values[0]!)) {
    const properties = target.values as Json[];
    if (target.type === 'AND') parsed.push(condition(properties));
    else for (const property of properties) parsed.push(condition([property]));
  } else {
    // Nested groups only fit as an OR of ANDs; PostHog does not rewrite an AND of ORs.
    if (target.type === 'AND') return conditions;
    for (const group of target.values as Node[]) {
      if (!isGroup(group) || group.values.length === 0 || isGroup(group.values[0]!) || (group.type === 'OR' && group.values.length > 1)) {
        return conditions;
      }
      parsed.push(condition(group.values as Json[]));
    }
  }
  return parsed;
}
