/**
 * DRF words its errors with Python's view of the input; these render a JSON value the way those
 * messages show it, so Hoglet's texts match PostHog's to the letter.
 */

/** Python's `type(x).__name__` for a JSON value. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}
