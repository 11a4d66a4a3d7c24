/**
 * PostHog's property operators: the names filters may use, and what they stand for once
 * PostHog's aliases are resolved. One list, read by every filter reader.
 */

/** PostHog's `PropertyOperator` enum (posthog/schema), in its order. */
export const PROPERTY_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
  'is_date_exact',
  'is_date_before',
  'is_date_after',
  'between',
  'not_between',
  'min',
  'max',
  'in',
  'not_in',
  'is_cleaned_path_exact',
  'flag_evaluates_to',
] as const;

export type PropertyOperatorName = (typeof PROPERTY_OPERATORS)[number];

/** The comparisons the operators come down to, after PostHog's aliases (min/max, the date ones). */
export type PropertyOperator =
  | 'exact'
  | 'is_not'
  | 'is_set'
  | 'is_not_set'
  | 'icontains'
  | 'not_icontains'
  | 'regex'
  | 'not_regex'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'between'
  | 'not_between'
  | 'in'
  | 'not_in';

/**
 * Operator name → the comparison HogQL's `_expr_to_compare_op` builds for it: min/max are
 * gte/lte, and the date operators compare the value as given (`Eq`, `Lt`, `Gt`). Names missing
 * here (is_cleaned_path_exact, flag_evaluates_to) are not compared in SQL.
 */
export const OPERATOR_COMPARISONS: Partial<Record<PropertyOperatorName, PropertyOperator>> = {
  exact: 'exact',
  is_date_exact: 'exact',
  is_not: 'is_not',
  is_set: 'is_set',
  is_not_set: 'is_not_set',
  icontains: 'icontains',
  not_icontains: 'not_icontains',
  regex: 'regex',
  not_regex: 'not_regex',
  gt: 'gt',
  is_date_after: 'gt',
  gte: 'gte',
  min: 'gte',
  lt: 'lt',
  is_date_before: 'lt',
  lte: 'lte',
  max: 'lte',
  between: 'between',
  not_between: 'not_between',
  in: 'in',
  not_in: 'not_in',
};

/** The operators every comparison in Hoglet handles, the first twelve of PostHog's list. */
export const BASIC_PROPERTY_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
] as const satisfies readonly PropertyOperatorName[];
