/**
 * PostHog's deprecated cohort `groups`, read as its Cohort.properties reads them when a cohort has
 * no `filters`: an OR of one group each, a group's `properties` ANDed (a filter without a type, or
 * typed `event`, is a person filter; a person filter naming no operator is `exact`, as PostHog's
 * Property reads it; an old `{key: value}` object is exact person filters), a
 * group's `event_id` or `action_id` a behavioral filter over its `days` (365 when none). A group
 * with none of these is refused, as PostHog's Group refuses it.
 */
import { isJsonObject } from '../../lib/json-object.js';

type Json = Record<string, unknown>;

export class LegacyGroupsError extends Error {}

/** Whether a body's `filters` counts as given: PostHog reads `groups` only when `filters` is falsy. */
export function filtersGiven(filters: unknown): boolean {
  if (filters === undefined || filters === null || filters === false || filters === '' || filters === 0) return false;
  if (Array.isArray(filters)) return filters.length > 0;
  return !isJsonObject(filters) || Object.keys(filters).length > 0;
}

function personFilters(properties: unknown): unknown {
  if (Array.isArray(properties)) {
    return properties.map((p) =>
      isJsonObject(p) && (p.type === undefined || p.type === 'event' || p.type === 'person')
        ? { ...p, type: 'person', operator: p.operator ?? 'exact' }
        : p,
    );
  }
  // Already a property group: taken as it is.
  if (isJsonObject(properties) && ('type' in properties || 'values' in properties)) return properties;
  if (isJsonObject(properties))
    return Object.entries(properties).map(([key, value]) => ({ key, value, type: 'person', operator: 'exact' }));
  return properties;
}

function groupFilter(group: Json): Json {
  const properties = group.properties;
  const hasProperties = Array.isArray(properties) ? properties.length > 0 : isJsonObject(properties) && Object.keys(properties).length > 0;
  if (hasProperties) {
    const filters = personFilters(properties);
    return isJsonObject(filters) ? filters : { type: 'AND', values: filters };
  }
  const key = group.action_id || group.event_id;
  if (key) {
    const count = Math.max(0, Math.trunc(Number(group.count ?? 0)) || 0);
    return {
      type: 'AND',
      values: [
        {
          key,
          type: 'behavioral',
          value: count ? 'performed_event_multiple' : 'performed_event',
          event_type: group.action_id ? 'actions' : 'events',
          time_interval: 'day',
          time_value: group.days || 365,
          ...(count ? { operator: group.count_operator ?? null, operator_value: count } : {}),
        },
      ],
    };
  }
  throw new LegacyGroupsError('Cohort group needs properties or action_id or event_id');
}

/** The `filters` that legacy `groups` stand for; throws LegacyGroupsError for what PostHog refuses. */
export function filtersFromLegacyGroups(groups: unknown): Json {
  if (!Array.isArray(groups)) throw new LegacyGroupsError('Expected a list of groups.');
  return {
    properties: {
      type: 'OR',
      values: groups.map((group) => {
        if (!isJsonObject(group)) throw new LegacyGroupsError('Each group must be an object.');
        return groupFilter(group);
      }),
    },
  };
}
