/**
 * The query parameters of `event_definitions/` and `property_definitions/` as PostHog reads them
 * (posthog/api/event_definition.py, property_definition.py), or the 400 they earn. Pure: the
 * routes hand in the query object.
 */
import { drfBoolean } from '../../posthog/drf-fields.js';
import { PROPERTY_KINDS, type PropertyKind } from './property-types.js';

export type ParamResult<T> = { ok: true; value: T } | { ok: false; attr: string; detail: string };

/** Django's `request.GET.get`: the last value of a repeated parameter. */
export function lastParam(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof last === 'string' ? last : undefined;
}

/** Every value of a parameter (`getlist`). */
function allParams(query: unknown, name: string): string[] {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === 'string');
}

/** Properties ingestion makes that PostHog never lists (HIDDEN_PROPERTY_DEFINITIONS). */
export const HIDDEN_PROPERTY_DEFINITIONS = [
  'distinct_id',
  '$set',
  '$set_once',
  '$groups',
  '$group_type',
  '$group_key',
  '$group_set',
  ...[0, 1, 2, 3, 4].map((i) => `$group_${i}`),
];

/** A JSON list of strings in a parameter, or the 400 PostHog's serializer gives. */
function jsonNames(query: unknown, name: string): ParamResult<string[] | undefined> {
  const text = lastParam(query, name);
  if (text === undefined || text === '') return { ok: true, value: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, attr: name, detail: 'Value must be valid JSON.' };
  }
  if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string')) {
    return { ok: false, attr: name, detail: 'Expected a JSON list of strings.' };
  }
  return { ok: true, value: parsed as string[] };
}

function optionalBoolean(query: unknown, name: string): ParamResult<boolean | undefined> {
  const text = lastParam(query, name);
  if (text === undefined || text === '') return { ok: true, value: undefined };
  const value = drfBoolean(text);
  return value === undefined ? { ok: false, attr: name, detail: 'Must be a valid boolean.' } : { ok: true, value };
}

const EVENT_TYPES = ['event', 'event_custom', 'event_posthog'] as const;

export interface EventDefinitionParams {
  search: string | undefined;
  eventType: (typeof EVENT_TYPES)[number];
  names: string[] | undefined;
  excluded: string[] | undefined;
}

export function readEventDefinitionParams(query: unknown): ParamResult<EventDefinitionParams> {
  const rawType = lastParam(query, 'event_type') ?? 'event';
  // `all` and `action_event` never listed actions: both give the plain event definitions.
  const eventType = rawType === 'all' || rawType === 'action_event' ? 'event' : rawType;
  if (!(EVENT_TYPES as readonly string[]).includes(eventType)) {
    return { ok: false, attr: 'event_type', detail: `Not a valid event type. Use one of: ${EVENT_TYPES.join(', ')}.` };
  }
  const excluded = jsonNames(query, 'excluded_properties');
  if (!excluded.ok) return excluded;
  const names = allParams(query, 'names').flatMap((v) => v.split(',').filter((n) => n !== ''));
  return {
    ok: true,
    value: {
      search: lastParam(query, 'search'),
      eventType: eventType as EventDefinitionParams['eventType'],
      names: names.length > 0 ? names : undefined,
      excluded: excluded.value,
    },
  };
}

export interface PropertyDefinitionParams {
  type: number;
  groupTypeIndex: number;
  search: string | undefined;
  names: string[] | undefined;
  excluded: string[];
  isNumerical: boolean | undefined;
  isFeatureFlag: boolean | undefined;
  eventNames: string[] | undefined;
  onlySeenOnEvents: boolean | undefined;
}

export function readPropertyDefinitionParams(query: unknown): ParamResult<PropertyDefinitionParams> {
  const kind = lastParam(query, 'type') ?? 'event';
  if (!Object.hasOwn(PROPERTY_KINDS, kind)) {
    return { ok: false, attr: 'type', detail: `"${kind}" is not a valid choice.` };
  }
  let groupTypeIndex = -1;
  if (kind === 'group') {
    const raw = lastParam(query, 'group_type_index');
    if (raw === undefined || raw === '') {
      return { ok: false, attr: 'group_type_index', detail: 'This field is required when type is group.' };
    }
    const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n > 4) return { ok: false, attr: 'group_type_index', detail: 'Ensure this value is between 0 and 4.' };
    groupTypeIndex = n;
  }
  const eventNames = jsonNames(query, 'event_names');
  if (!eventNames.ok) return eventNames;
  const excluded = jsonNames(query, 'excluded_properties');
  if (!excluded.ok) return excluded;
  const isNumerical = optionalBoolean(query, 'is_numerical');
  if (!isNumerical.ok) return isNumerical;
  const isFeatureFlag = optionalBoolean(query, 'is_feature_flag');
  if (!isFeatureFlag.ok) return isFeatureFlag;
  const filterByEvents = optionalBoolean(query, 'filter_by_event_names');
  if (!filterByEvents.ok) return filterByEvents;
  const names = lastParam(query, 'properties')
    ?.split(',')
    .filter((n) => n !== '');
  return {
    ok: true,
    value: {
      type: PROPERTY_KINDS[kind as PropertyKind],
      groupTypeIndex,
      search: lastParam(query, 'search'),
      names: names && names.length > 0 ? names : undefined,
      excluded: [...new Set([...(excluded.value ?? []), ...HIDDEN_PROPERTY_DEFINITIONS])],
      isNumerical: isNumerical.value,
      isFeatureFlag: isFeatureFlag.value,
      eventNames: eventNames.value,
      onlySeenOnEvents: filterByEvents.value,
    },
  };
}

export interface DefinitionChanges {
  description?: string | null;
  tags?: string[];
}

/** A PATCH body: `description` (text or null) and `tags` (a list of text); other fields are ignored. */
export function readDefinitionChanges(body: unknown): ParamResult<DefinitionChanges> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, attr: 'non_field_errors', detail: 'Invalid data. Expected a dictionary.' };
  }
  const b = body as Record<string, unknown>;
  const changes: DefinitionChanges = {};
  if ('description' in b) {
    if (b.description !== null && typeof b.description !== 'string')
      return { ok: false, attr: 'description', detail: 'Not a valid string.' };
    if (typeof b.description === 'string' && b.description.length > 10_000) {
      return { ok: false, attr: 'description', detail: 'Ensure this field has no more than 10000 characters.' };
    }
    changes.description = b.description;
  }
  if ('tags' in b) {
    const tags = b.tags;
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string' && t.length <= 255) || tags.length > 100) {
      return { ok: false, attr: 'tags', detail: 'Expected a list of tag names.' };
    }
    // PostHog stores tags lowercased and trimmed, once each.
    changes.tags = [...new Set((tags as string[]).map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];
  }
  return { ok: true, value: changes };
}
