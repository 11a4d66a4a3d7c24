/**
 * `Promise.all(items.map(fn))`, one item at a time. For work that reads a lot each (an insight's
 * result reads its events a page at a time): run side by side, a page of insights held all their
 * pages in memory at once and interleaved their reads.
 */
export async function mapInOrder<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await fn(item));
  return results;
}
