/**
 * The persons list's query parameters, read as PostHog's PersonViewSet.list reads them
 * (posthog/api/person.py): `distinct_id`, `email`, `search` and `properties` (a JSON list of
 * person property filters, each defaulting to the `exact` operator), every one optional.
 *
 * PostHog answers some shapes it cannot read (a property group, a non-person filter type) with a
 * 500; Hoglet answers them with a 400 instead, never by dropping the filter: a caller deleting
 * what the list returns must not be handed persons its filter did not select.
 */
import { readPropertyCondition, type PropertyCondition } from '../posthog/property-conditions.js';
import { validationError } from '../posthog/errors.js';
import { parsePropertiesJson } from '../http/properties-param.js';

export type { PropertyCondition };

export interface CohortCondition {
  cohortId: number;
  /** `negation: true` or the `not_in` operator: persons outside the cohort. */
  negated: boolean;
}

export interface PersonListQuery {
  distinctId?: string | undefined;
  email?: string | undefined;
  search?: string | undefined;
  properties: PropertyCondition[];
  cohorts: CohortCondition[];
}

/** Django's `request.GET.get` (and `.dict()`) keeps the last of a repeated parameter. */
function lastValue(value: unknown): string | undefined {
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof last === 'string' ? last : undefined;
}

const filterShapeError = () =>
  validationError('Properties must be a JSON list of property filters, each an object with a string key.', 'properties');

function readCohort(filter: Record<string, unknown>): CohortCondition {
  const raw = filter.value;
  const id = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw validationError('A cohort filter needs the cohort id as its value.', 'properties');
  return { cohortId: id, negated: filter.negation === true || filter.operator === 'not_in' };
}

function readProperty(filter: Record<string, unknown>): PropertyCondition {
  if (typeof filter.key !== 'string') throw filterShapeError();
  return readPropertyCondition({ key: filter.key, operator: filter.operator, value: filter.value }, 'the persons list');
}

/** The `properties` parameter: a list of person (or cohort) filters, ANDed. */
export function parsePropertiesParam(raw: string | undefined): Pick<PersonListQuery, 'properties' | 'cohorts'> {
  const result: Pick<PersonListQuery, 'properties' | 'cohorts'> = { properties: [], cohorts: [] };
  if (!raw) return result;
  const parsed = parsePropertiesJson(raw);
  if (!Array.isArray(parsed)) throw filterShapeError();
  for (const item of parsed) {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw filterShapeError();
    const filter = item as Record<string, unknown>;
    // A filter without a type is a person filter (the schema's PersonPropertyFilter default).
    const type = filter.type ?? 'person';
    if (type === 'cohort') result.cohorts.push(readCohort(filter));
    else if (type === 'person') result.properties.push(readProperty(filter));
    else throw validationError(`The '${String(type)}' property filter does not work in 'person' scope`, 'properties');
  }
  return result;
}

export function parsePersonListQuery(query: unknown): PersonListQuery {
  const q = (query ?? {}) as Record<string, unknown>;
  // Empty values filter nothing: PostHog tests each with `if filter.x:`.
  const search = lastValue(q.search)?.trim();
  return {
    distinctId: lastValue(q.distinct_id) || undefined,
    email: lastValue(q.email) || undefined,
    search: search || undefined,
    ...parsePropertiesParam(lastValue(q.properties)),
  };
}
