/** A JSON object (not null, not an array): what `filters`, conditions and bodies are checked to be. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Assignment that cannot hit `__proto__` setters, for keys that come from clients. Only that one
 * name reaches a setter on a plain object, so every other key takes the (much faster) plain
 * assignment: ingestion runs this for every lifted property of every event.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
