/**
 * A shallow copy of one or more objects (later sources win, as in a spread) that is going to get
 * keys the sources did not have.
 *
 * Why not `{ ...source }`: V8 gives a spread copy a hidden class that adding a new key to takes
 * a slow path, and the grown object stays slow to read afterwards (figures measured on Node 20:
 * docs/benchmarks.md). A spread stays the right copy when
 * nothing is added to it (it is the fastest copy then).
 *
 * Like a spread, an own `__proto__` key (JSON.parse makes one from client text) is copied as an
 * own key: `Object.assign` alone would call the `__proto__` setter and give the copy the client's
 * object as its prototype, whose keys every later read would then see.
 */
export function growableCopy<T extends object>(...sources: ReadonlyArray<T | null | undefined>): T {
  const copy = {} as T;
  for (const source of sources) {
    if (!source) continue;
    if (Object.hasOwn(source, '__proto__')) copyKeyByKey(copy, source);
    else Object.assign(copy, source);
  }
  return copy;
}

/** What a spread copies (own enumerable keys, symbols too), each defined as an own data property. */
function copyKeyByKey(copy: object, source: object): void {
  for (const key of Reflect.ownKeys(source)) {
    if (!Object.prototype.propertyIsEnumerable.call(source, key)) continue;
    Object.defineProperty(copy, key, {
      value: (source as Record<string | symbol, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
}
