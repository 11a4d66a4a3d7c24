/**
 * The two backends hand back some values differently: PostgreSQL gives booleans and parsed JSONB,
 * SQLite gives 0/1 and text. Stores read every such column through these helpers.
 */
import { wellFormedJson } from '../../lib/well-formed.js';

/**
 * A value for a JSON column, written identically on both backends: NUL and lone surrogates in its
 * strings (keys too) become U+FFFD (PostgreSQL's jsonb refuses them, SQLite would keep them; see
 * lib/well-formed). One extra scan of the text when there are none.
 */
export function toJson(value: unknown): string {
  return wellFormedJson(JSON.stringify(value ?? null));
}

/** A JSON column read back: PostgreSQL has parsed it already, SQLite returns the text. */
export function fromJson<T>(value: unknown): T {
  if (typeof value === 'string') return JSON.parse(value) as T;
  return value as T;
}

export function fromBool(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** Earliest and latest instants both databases' timestamps hold (years 1 to 9999, UTC). */
const FIRST_STORED_INSTANT = new Date(0).setUTCFullYear(1, 0, 1);
const LAST_STORED_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An instant (ms) held within what both databases read, as stored timestamps' ISO text: a bound
 * compared with stored timestamps. No event lies outside that range.
 */
export function storedInstantText(ms: number): string {
  return new Date(Math.min(Math.max(ms, FIRST_STORED_INSTANT), LAST_STORED_INSTANT)).toISOString();
}
