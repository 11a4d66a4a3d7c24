/**
 * The cohort editor's form and PostHog's cohort `filters`: `{properties: {type, values}}`, an
 * AND/OR group of groups of filters (each group AND/OR within). The editor edits person property
 * filters; anything else in a group (cohort references, behavioral filters, negated or nested
 * filters, kinds it does not know) is kept as stored and written back in its place.
 */
import type { Cohort, CohortGroup, CohortPropertyFilter } from '../../api/cohorts';
import { emptyProperty, personFilter, personRow, type PropertyRow } from '../flags/flag-form';

export type Match = 'AND' | 'OR';

/** A person property filter in the form, with the stored filter it came from (written back as is while untouched). */
export type CohortPropertyRow = PropertyRow & { stored?: CohortPropertyFilter };

/** A filter (or nested group) the editor cannot edit; `at` is how many of its group's person rows came before it. */
export interface KeptFilter {
  filter: CohortGroup | CohortPropertyFilter;
  at: number;
}

export interface RuleGroup {
  match: Match;
  properties: CohortPropertyRow[];
  kept: KeptFilter[];
}

export interface CohortForm {
  name: string;
  description: string;
  isStatic: boolean;
  match: Match;
  groups: RuleGroup[];
}

export const emptyGroup = (): RuleGroup => ({ match: 'AND', properties: [emptyProperty()], kept: [] });

export function newCohortForm(): CohortForm {
  return { name: '', description: '', isStatic: false, match: 'OR', groups: [emptyGroup()] };
}

/** The name field's error, or true: a cohort needs a name, as PostHog's form says. */
export const checkCohortName = (name: string): true | string => name.trim() !== '' || 'Cohort name cannot be empty';

/**
 * The rules' error, if any: a group with no filter left would match everyone (an empty AND is
 * true), which no one means by removing its last row.
 */
export function checkGroups(form: CohortForm): string | undefined {
  const empty = form.groups.findIndex((group) => group.properties.length === 0 && (group.kept ?? []).length === 0);
  if (empty < 0) return undefined;
  return form.groups.length > 1
    ? `Group ${empty + 1} has no filters: add one, or remove the group.`
    : 'Add a filter: a cohort with none would hold everyone.';
}

const isGroup = (value: CohortGroup | CohortPropertyFilter): value is CohortGroup => Array.isArray((value as CohortGroup).values);

/** The form's rows show no negation: a negated person filter edited there would silently flip, so it is kept. */
const isEditable = (value: CohortGroup | CohortPropertyFilter): value is CohortPropertyFilter =>
  !isGroup(value) && value.type === 'person' && value.negation !== true;

function ruleGroup(match: Match, values: Array<CohortGroup | CohortPropertyFilter>): RuleGroup {
  const properties: CohortPropertyRow[] = [];
  const kept: KeptFilter[] = [];
  for (const value of values) {
    if (isEditable(value)) properties.push({ ...personRow(value), stored: value });
    else kept.push({ filter: value, at: properties.length });
  }
  return { match, properties, kept };
}

export function formFromCohort(cohort: Cohort): CohortForm {
  const root = cohort.filters?.properties;
  const groups = (root?.values ?? []).map((value) =>
    // A filter right under the top group (the API refuses these) gets a group of its own.
    isGroup(value) ? ruleGroup(value.type, value.values) : ruleGroup('AND', [value]),
  );
  return {
    name: cohort.name,
    description: cohort.description,
    isStatic: cohort.is_static,
    match: root?.type ?? 'OR',
    groups: groups.length > 0 ? groups : [emptyGroup()],
  };
}

const untouched = (row: CohortPropertyRow, stored: CohortPropertyFilter): boolean => {
  const before = personRow(stored);
  return before.key === row.key && before.operator === row.operator && before.value === row.value;
};

/** A row as a stored filter: the stored one while untouched (its value's exact form, fields the form has none for), else rebuilt. */
function propertyFilter({ stored, ...row }: CohortPropertyRow): CohortPropertyFilter {
  return stored && untouched(row, stored) ? stored : (personFilter(row) as CohortPropertyFilter);
}

export function filtersFromForm(form: CohortForm): { properties: CohortGroup } {
  return {
    properties: {
      type: form.match,
      values: form.groups.map((group) => {
        const rows = group.properties;
        const kept = [...(group.kept ?? [])].sort((a, b) => a.at - b.at);
        const values: CohortGroup['values'] = [];
        // Kept filters go back between the rows they sat between (after the last row if rows were removed).
        let k = 0;
        for (let i = 0; i <= rows.length; i++) {
          while (k < kept.length && (kept[k]!.at <= i || i === rows.length)) values.push(kept[k++]!.filter);
          if (i < rows.length) values.push(propertyFilter(rows[i]!));
        }
        return { type: group.match, values };
      }),
    },
  };
}

const plural = (n: unknown, unit: string) => `${String(n)} ${unit}${Number(n) === 1 ? '' : 's'}`;

const TIMES: Record<string, string> = { exact: 'exactly', gte: 'at least', gt: 'more than', lte: 'at most', lt: 'fewer than' };

function describeBehavioral(filter: Record<string, unknown>): string | undefined {
  const what = filter.event_type === 'actions' ? `action #${String(filter.key)}` : `event ${String(filter.key)}`;
  let text: string;
  if (filter.value === 'performed_event') text = `Performed ${what}`;
  else if (filter.value === 'performed_event_first_time') text = `Performed ${what} for the first time`;
  else if (filter.value === 'performed_event_multiple' && typeof filter.operator === 'string' && filter.operator in TIMES)
    text = `Performed ${what} ${TIMES[filter.operator]} ${plural(filter.operator_value, 'time')}`;
  else return undefined;
  if (filter.time_value != null && typeof filter.time_interval === 'string') {
    text += ` in the last ${plural(filter.time_value, filter.time_interval)}`;
  }
  return filter.negation === true ? `Not: ${text}` : text;
}

/** Whether a kept filter is, or holds, a behavioral (performed an event) filter, which membership never matches. */
export function holdsBehavioral(filter: CohortGroup | CohortPropertyFilter): boolean {
  return isGroup(filter) ? filter.values.some(holdsBehavioral) : filter.type === 'behavioral';
}

/** A cohort's name by its id, where known. */
export type CohortNames = (id: number) => string | undefined;

/** A cohort reference as membership judges it: `not_in` excludes; negation counts except right under an OR group. */
function describeCohort(filter: CohortPropertyFilter, inOr: boolean, nameOf: CohortNames): string {
  const operator = filter.operator ?? 'in';
  const name = nameOf(Number(filter.value));
  const id = name ? `"${name}" (#${String(filter.value)})` : `#${String(filter.value)}`;
  if (operator !== 'in' && operator !== 'not_in') return `Cohort ${id} with operator ${operator}, which matches no one`;
  const excluded = (operator === 'not_in') !== (filter.negation === true && !inOr);
  return excluded ? `Not in cohort ${id}` : `Cohort ${id}`;
}

/**
 * A kept filter in words, for the editor to show what it keeps; kinds it does not know as their
 * JSON. `inOr`: whether the group holding it is an OR group; `nameOf` names referenced cohorts.
 */
export function describeKept(filter: CohortGroup | CohortPropertyFilter, inOr = false, nameOf: CohortNames = () => undefined): string {
  if (isGroup(filter)) {
    const inner = filter.values.map((value) => describeKept(value, filter.type === 'OR', nameOf));
    return `${filter.type === 'AND' ? 'All' : 'Any'} of (${inner.join('; ')})`;
  }
  if (filter.type === 'cohort') return describeCohort(filter, inOr, nameOf);
  const negated = filter.negation === true;
  if (filter.type === 'person') {
    const text = `Person property ${filter.key} ${filter.operator ?? 'exact'} ${JSON.stringify(filter.value ?? null)}`;
    return negated ? `Not: ${text}` : text;
  }
  if (filter.type === 'person_metadata' && filter.key === 'created_at') {
    const text = `First seen ${filter.operator ?? 'exact'} ${JSON.stringify(filter.value ?? null)}`;
    return negated ? `Not: ${text}` : text;
  }
  if (filter.type === 'behavioral') {
    const text = describeBehavioral(filter as unknown as Record<string, unknown>);
    if (text) return text;
  }
  return JSON.stringify(filter);
}
