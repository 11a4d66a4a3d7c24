/**
 * The cohort editor's form and PostHog's cohort `filters`: `{properties: {type, values}}`, an
 * AND/OR group of groups of person property filters (each group AND/OR within).
 */
import type { Cohort, CohortGroup, CohortPropertyFilter } from '../../api/cohorts';
import { emptyProperty, personFilter, personRow, type PropertyRow } from '../flags/flag-form';

export type Match = 'AND' | 'OR';

export interface RuleGroup {
  match: Match;
  properties: PropertyRow[];
}

export interface CohortForm {
  name: string;
  description: string;
  isStatic: boolean;
  match: Match;
  groups: RuleGroup[];
}

export const emptyGroup = (): RuleGroup => ({ match: 'AND', properties: [emptyProperty()] });

export function newCohortForm(): CohortForm {
  return { name: '', description: '', isStatic: false, match: 'OR', groups: [emptyGroup()] };
}

/** The name field's error, or true: a cohort needs a name, as PostHog's form says. */
export const checkCohortName = (name: string): true | string => name.trim() !== '' || 'Cohort name cannot be empty';

const isGroup = (value: CohortGroup | CohortPropertyFilter): value is CohortGroup => Array.isArray((value as CohortGroup).values);

export function formFromCohort(cohort: Cohort): CohortForm {
  const root = cohort.filters?.properties;
  const groups: RuleGroup[] = [];
  for (const value of root?.values ?? []) {
    if (isGroup(value)) {
      // Deeper nesting than two levels is kept flat here: its filters join the group's.
      const leaves: CohortPropertyFilter[] = [];
      const walk = (node: CohortGroup | CohortPropertyFilter) => (isGroup(node) ? node.values.forEach(walk) : leaves.push(node));
      value.values.forEach(walk);
      groups.push({ match: value.type, properties: leaves.filter((l) => l.type === 'person').map(personRow) });
    } else if (value.type === 'person') groups.push({ match: 'AND', properties: [personRow(value)] });
  }
  return {
    name: cohort.name,
    description: cohort.description,
    isStatic: cohort.is_static,
    match: root?.type ?? 'OR',
    groups: groups.length > 0 ? groups : [emptyGroup()],
  };
}

export function filtersFromForm(form: CohortForm): { properties: CohortGroup } {
  return {
    properties: {
      type: form.match,
      values: form.groups.map((group) => ({ type: group.match, values: group.properties.map(personFilter) as CohortPropertyFilter[] })),
    },
  };
}
