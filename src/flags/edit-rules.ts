/**
 * Two rules of PostHog's FeatureFlagSerializer.update: a renamed flag's early-access conditions
 * follow the new key, and a stale edit (an old `version`) is refused only when it collides with
 * someone else's change (`_get_conflicting_changes`).
 */
import { isJsonObject } from '../lib/json-object.js';

type Json = Record<string, unknown>;

const ENROLLMENT_PREFIX = '$feature_enrollment/';

/**
 * `_update_super_groups_for_key_change`: legacy early-access conditions (`super_groups`) name the
 * flag's key in their `$feature_enrollment/<key>` property, so every such property is re-pointed at
 * the new key; otherwise enrolled users would silently lose the flag. Undefined for filters
 * without `super_groups`: there is nothing to rewrite, and not re-saving them keeps a concurrent
 * edit of the filters intact.
 */
export function filtersForNewKey(filters: Json, newKey: string): Json | undefined {
  if (!Array.isArray(filters.super_groups)) return undefined;
  const superGroups = filters.super_groups.map((group: unknown) => {
    if (!isJsonObject(group)) return group;
    const properties = Array.isArray(group.properties) ? group.properties : [];
    return {
      ...group,
      properties: properties.map((property: unknown) =>
        isJsonObject(property) && typeof property.key === 'string' && property.key.startsWith(ENROLLMENT_PREFIX)
          ? { ...property, key: `${ENROLLMENT_PREFIX}${newKey}` }
          : property,
      ),
    };
  });
  return { ...filters, super_groups: superGroups };
}

/**
 * Python's `==` on JSON values: dicts compare by content whatever their key order, lists item by
 * item, and booleans equal the numbers 1 and 0 (`True == 1`).
 */
export function pyEqual(a: unknown, b: unknown): boolean {
  const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'boolean';
  if (scalar(a) && scalar(b)) return Number(a) === Number(b);
  if ((a ?? null) === null || (b ?? null) === null) return (a ?? null) === (b ?? null);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => pyEqual(item, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && pyEqual(a[key], b[key]));
  }
  return a === b;
}

/**
 * `_get_conflicting_changes`: among the fields this edit sets (`validated`, API field names), those
 * the editor meant to change (they differ from `original_flag`) that someone else changed since
 * (the stored value differs from `original_flag`), to something other than this edit's value.
 */
export function conflictingFields(stored: Json, validated: Json, original: unknown): string[] {
  if (!isJsonObject(original)) return [];
  return Object.keys(validated).filter(
    (field) =>
      field in original &&
      !pyEqual(validated[field], original[field]) &&
      !pyEqual(original[field], stored[field]) &&
      !pyEqual(validated[field], stored[field]),
  );
}
