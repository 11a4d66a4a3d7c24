/** What the worker and its prepare thread (prepare-thread.ts) send each other. */
import type { GeoipService } from '../../geoip/geoip-service.js';
import { geoipAdditions } from '../core/index.js';
import { isUnprepared, type PreparedEvent, type PreparedRow, type UnpreparedRow } from './prepare.js';

export interface PrepareRequest {
  /** Team id and payload of each row, in queue order. */
  rows: Array<[teamId: number, payload: string]>;
  /** The teams whose environment has `anonymize_ips`. */
  anonymized: number[];
}

/**
 * The prepared rows, packed to be cheap to receive: structured cloning the objects cost the
 * worker's thread about a third of what preparing them saved it; JSON plus one long string costs
 * less (docs/benchmarks.md). `meta` is the rows as JSON without their
 * properties' JSON, which is `properties` cut at `ends`; each prepared row is a JSON array, not an
 * object (WireEvent): no keys to read, defaults left out (arrays parse faster than objects on
 * capture's stream).
 */
export interface PackedRows {
  meta: string;
  properties: string;
  ends: Int32Array;
}

/** How a prepared event crosses the threads: its fields by position (encodeEvent, decodeEvent). */
type WireEvent = [
  uuid: string,
  event: string,
  distinctId: string,
  mode: number,
  timestamp: string,
  set: PreparedEvent['update']['set'],
  setOnce: PreparedEvent['update']['setOnce'],
  unset: string[] | 0,
  sessionId: string | null,
  elementsChain: string | null,
  geoipAddress: string | null,
  flags: number,
  warnings: PreparedEvent['warnings'] | 0,
  merge: NonNullable<PreparedEvent['merge']> | 0,
  groups: NonNullable<PreparedEvent['groups']> | 0,
  definitions: string,
];

const MODES: ReadonlyArray<PreparedEvent['mode']> = ['process', 'personless', 'lookup', 'drop'];
const PERSON_ONLY = 1;
const OWN_GROUP_KEYS = 2;
const ANONYMIZE_IPS = 4;

/** The event without its properties' JSON and GeoIP's overlays (the worker looks those up again). */
function encodeEvent(row: PreparedEvent): WireEvent {
  const { update } = row;
  return [
    row.uuid,
    row.event,
    row.distinctId,
    MODES.indexOf(row.mode),
    row.timestamp,
    update.set,
    update.setOnce,
    update.unset.length > 0 ? update.unset : 0,
    row.sessionId,
    row.elementsChain,
    row.geoipAddress ?? null,
    (row.personOnly ? PERSON_ONLY : 0) | (row.ownGroupKeys ? OWN_GROUP_KEYS : 0) | (row.anonymizeIps ? ANONYMIZE_IPS : 0),
    row.warnings.length > 0 ? row.warnings : 0,
    row.merge ?? 0,
    row.groups ?? 0,
    row.definitions,
  ];
}

/** Every field of PreparedEvent is named here, so a field added to it fails to compile until it crosses too. */
function decodeEvent(wire: WireEvent, propertiesJson: string): PreparedEvent {
  const flags = wire[11];
  return {
    uuid: wire[0],
    event: wire[1],
    distinctId: wire[2],
    personOnly: (flags & PERSON_ONLY) !== 0,
    mode: MODES[wire[3]]!,
    timestamp: wire[4],
    warnings: wire[12] === 0 ? [] : wire[12],
    update: { set: wire[5], setOnce: wire[6], unset: wire[7] === 0 ? [] : wire[7] },
    merge: wire[13] === 0 ? undefined : wire[13],
    groups: wire[14] === 0 ? undefined : wire[14],
    propertiesJson,
    geoipAddress: wire[10] ?? undefined,
    ownGroupKeys: (flags & OWN_GROUP_KEYS) !== 0,
    sessionId: wire[8],
    elementsChain: wire[9],
    anonymizeIps: (flags & ANONYMIZE_IPS) !== 0,
    definitions: wire[15],
  };
}

const isWireEvent = (item: WireEvent | UnpreparedRow): item is WireEvent => Array.isArray(item);

/**
 * The other side of the packing. A row whose update had GeoIP's keys as overlays gets them again
 * from `geoip` (the same database as the thread's: the same answer for the same address); one
 * whose answer is not found is left for the worker to prepare.
 */
export function unpackReply(reply: PackedRows, geoip: GeoipService | undefined): PreparedRow[] {
  const wire = JSON.parse(reply.meta) as Array<WireEvent | UnpreparedRow>;
  const rows = new Array<PreparedRow>(wire.length);
  let start = 0;
  for (let i = 0; i < wire.length; i++) {
    const end = reply.ends[i]!;
    const item = wire[i]!;
    if (isWireEvent(item)) {
      const row = decodeEvent(item, reply.properties.slice(start, end));
      rows[i] = row.geoipAddress !== undefined ? withGeoipOverlays(row, geoip) : row;
    } else rows[i] = item;
    start = end;
  }
  return rows;
}

function withGeoipOverlays(row: PreparedEvent, geoip: GeoipService | undefined): PreparedRow {
  const answer = geoip?.lookup(row.geoipAddress!);
  if (!answer) return { failed: `no GeoIP answer for ${row.geoipAddress} on the worker's thread` };
  const additions = geoipAdditions(answer);
  row.update.setOverlay = additions.set;
  row.update.setOnceOverlay = additions.setOnce;
  return row;
}

export function packReply(prepared: PreparedRow[]): PackedRows {
  let properties = '';
  const ends = new Int32Array(prepared.length);
  const meta = prepared.map((row, i) => {
    if (isUnprepared(row)) {
      ends[i] = properties.length;
      return row;
    }
    properties += row.propertiesJson;
    ends[i] = properties.length;
    return encodeEvent(row);
  });
  return { meta: JSON.stringify(meta), properties, ends };
}
