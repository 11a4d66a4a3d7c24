/**
 * The flag editor's form and PostHog's `filters`, both ways: release condition groups with their
 * property filters and rollout, multivariate variants, payloads (JSON text, as PostHog's UI stores
 * them) and the group type the flag aggregates by.
 */
import type { FeatureFlag, FlagFilters, FlagProperty } from '../../api/flags';
import { isValueless } from '../../api/operators';

export const COHORT_OPERATORS = [
  { value: 'in', label: 'in cohort' },
  { value: 'not_in', label: 'not in cohort' },
] as const;

const NUMERIC = new Set(['gt', 'gte', 'lt', 'lte']);

/** One property filter in the form: a person (or group) property, or a cohort. */
export interface PropertyRow {
  type: 'person' | 'cohort';
  key: string;
  operator: string;
  value: string;
}

export interface ConditionRow {
  properties: PropertyRow[];
  rollout: number;
  /** A variant this condition forces, or ''. */
  variant: string;
}

export interface VariantRow {
  key: string;
  name: string;
  rollout: number;
  payload: string;
}

export interface FlagForm {
  key: string;
  name: string;
  active: boolean;
  /** '' for persons, else the group type index. */
  aggregation: string;
  conditions: ConditionRow[];
  multivariate: boolean;
  variants: VariantRow[];
  /** The payload for `true` (boolean flags), JSON text. */
  payload: string;
}

export const emptyProperty = (): PropertyRow => ({ type: 'person', key: '', operator: 'exact', value: '' });
export const emptyCondition = (): ConditionRow => ({ properties: [], rollout: 100, variant: '' });

export function newFlagForm(): FlagForm {
  return {
    key: '',
    name: '',
    active: true,
    aggregation: '',
    conditions: [{ properties: [], rollout: 0, variant: '' }],
    multivariate: false,
    variants: [
      { key: 'control', name: '', rollout: 50, payload: '' },
      { key: 'test', name: '', rollout: 50, payload: '' },
    ],
    payload: '',
  };
}

function valueText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map((v) => String(v)).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function propertyRow(property: FlagProperty): PropertyRow {
  if (property.type === 'cohort') {
    return { type: 'cohort', key: 'id', operator: property.operator === 'not_in' ? 'not_in' : 'in', value: valueText(property.value) };
  }
  return { type: 'person', key: property.key, operator: property.operator ?? 'exact', value: valueText(property.value) };
}

export function formFromFlag(flag: FeatureFlag): FlagForm {
  const filters = flag.filters ?? {};
  const variants = filters.multivariate?.variants ?? [];
  const payloads = filters.payloads ?? {};
  return {
    key: flag.key,
    name: flag.name,
    active: flag.active,
    aggregation: filters.aggregation_group_type_index == null ? '' : String(filters.aggregation_group_type_index),
    conditions: (filters.groups ?? []).map((group) => ({
      properties: (group.properties ?? []).map(propertyRow),
      rollout: group.rollout_percentage ?? 100,
      variant: group.variant ?? '',
    })),
    multivariate: variants.length > 0,
    variants:
      variants.length > 0
        ? variants.map((v) => ({ key: v.key, name: v.name ?? '', rollout: v.rollout_percentage, payload: payloads[v.key] ?? '' }))
        : newFlagForm().variants,
    payload: variants.length > 0 ? '' : (payloads['true'] ?? ''),
  };
}

/**
 * A property's value as PostHog's UI sends it: a list for equality (comma-separated in the form),
 * a number for the comparisons when it reads as one, the text otherwise.
 */
function propertyValue(row: PropertyRow): unknown {
  const text = row.value.trim();
  if (row.operator === 'exact' || row.operator === 'is_not') {
    const items = text.split(',').map((item) => item.trim());
    return items.length > 1 ? items.filter((item) => item !== '') : text;
  }
  if (NUMERIC.has(row.operator) && text !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}

function propertyFilter(row: PropertyRow, groupTypeIndex: number | null): FlagProperty {
  if (row.type === 'cohort') {
    const id = Number(row.value);
    return { key: 'id', type: 'cohort', operator: row.operator, value: Number.isFinite(id) && row.value.trim() !== '' ? id : row.value };
  }
  const base = { key: row.key.trim(), operator: row.operator };
  const withValue = isValueless(row.operator) ? { ...base, value: row.operator } : { ...base, value: propertyValue(row) };
  return groupTypeIndex === null ? { ...withValue, type: 'person' } : { ...withValue, type: 'group', group_type_index: groupTypeIndex };
}

export function filtersFromForm(form: FlagForm): FlagFilters {
  const aggregation = form.aggregation === '' ? null : Number(form.aggregation);
  const variants = form.multivariate
    ? form.variants.map((v) => ({ key: v.key.trim(), name: v.name, rollout_percentage: Number(v.rollout) }))
    : [];
  const payloads: Record<string, string> = {};
  if (form.multivariate) {
    for (const variant of form.variants) if (variant.payload.trim() !== '') payloads[variant.key.trim()] = variant.payload;
  } else if (form.payload.trim() !== '') payloads['true'] = form.payload;
  return {
    groups: form.conditions.map((condition) => ({
      properties: condition.properties.map((row) => propertyFilter(row, aggregation)),
      rollout_percentage: Number(condition.rollout),
      variant: form.multivariate && condition.variant !== '' ? condition.variant : null,
    })),
    multivariate: form.multivariate ? { variants } : null,
    payloads,
    aggregation_group_type_index: aggregation,
  };
}

/** The variants' split as the form has it (the API refuses anything but 100). */
export function splitTotal(variants: VariantRow[]): number {
  return variants.reduce((total, v) => total + (Number(v.rollout) || 0), 0);
}

/** A flag's release in a line, for the list. */
export function describeRelease(filters: FlagFilters): string {
  const groups = filters.groups ?? [];
  const variants = filters.multivariate?.variants ?? [];
  const kind = variants.length > 0 ? `${variants.length} variants` : 'boolean';
  if (groups.length === 0) return kind;
  const parts = groups.map((g) => {
    const n = g.properties?.length ?? 0;
    return `${g.rollout_percentage ?? 100}% of ${n === 0 ? 'everyone' : `${n} filter${n > 1 ? 's' : ''}`}`;
  });
  return `${kind}: ${parts.join('; ')}`;
}

/** A person property filter as PostHog stores it (cohort rules use these too). */
export const personFilter = (row: PropertyRow): FlagProperty => propertyFilter({ ...row, type: 'person' }, null);

/** A stored person property filter as a form row. */
export const personRow = (property: FlagProperty): PropertyRow => ({ ...propertyRow({ ...property, type: 'person' }), type: 'person' });
