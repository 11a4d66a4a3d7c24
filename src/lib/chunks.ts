/** The list cut into runs of at most `size` items, in order (a statement's rows, an `IN (…)` list). */
export function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
