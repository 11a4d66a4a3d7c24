/** A JSON object (not null, not an array): what `filters`, conditions and bodies are checked to be. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
