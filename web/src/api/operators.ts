/** PostHog's property filter operators, as the app's forms offer them. */
import type { PropertyOperatorName } from '../../../src/posthog/property-operators';

/** The operators for person (and group) properties, as PostHog's UI labels them. */
export const PROPERTY_OPERATORS = [
  { value: 'exact', label: '= equals' },
  { value: 'is_not', label: '≠ does not equal' },
  { value: 'icontains', label: '∋ contains' },
  { value: 'not_icontains', label: '∌ does not contain' },
  { value: 'regex', label: '~ matches regex' },
  { value: 'not_regex', label: '≁ does not match regex' },
  { value: 'gt', label: '> greater than' },
  { value: 'gte', label: '≥ greater than or equal' },
  { value: 'lt', label: '< less than' },
  { value: 'lte', label: '≤ less than or equal' },
  { value: 'is_set', label: 'is set' },
  { value: 'is_not_set', label: 'is not set' },
  { value: 'is_date_before', label: 'date before' },
  { value: 'is_date_after', label: 'date after' },
] as const satisfies readonly { value: PropertyOperatorName; label: string }[];

/** The operators that take no value. */
const VALUELESS = new Set(['is_set', 'is_not_set']);

export const isValueless = (operator: string): boolean => VALUELESS.has(operator);
