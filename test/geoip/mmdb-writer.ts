/**
 * A minimal MaxMind DB (format 2.0) writer for tests: a binary search tree with 24-bit records,
 * a data section and metadata, enough for small hand-made databases in either record schema.
 * Supports maps, arrays, UTF-8 strings, doubles, unsigned integers and booleans (no pointers, no
 * deduplication). Networks must not overlap.
 */
import { isIP } from 'node:net';

export type MmdbValue = string | number | boolean | bigint | Uint | MmdbValue[] | { [key: string]: MmdbValue };

export interface MmdbNetwork {
  /** CIDR, IPv4 (`1.2.3.0/24`) or IPv6 (`2001:db8::/32`). */
  network: string;
  data: { [key: string]: MmdbValue };
}

export interface MmdbOptions {
  databaseType: string;
  ipVersion: 4 | 6;
  buildEpochSeconds?: number;
  languages?: string[];
  description?: Record<string, string>;
}

type Child = { node: TreeNode } | { data: number } | null;
interface TreeNode {
  children: [Child, Child];
  index: number;
}

export function writeMmdb(networks: MmdbNetwork[], options: MmdbOptions): Buffer {
  const data: Buffer[] = [];
  let dataSize = 0;
  const root: TreeNode = { children: [null, null], index: 0 };

  for (const { network, data: record } of networks) {
    const bits = networkBits(network, options.ipVersion);
    const encoded = encode(record);
    const offset = dataSize;
    data.push(encoded);
    dataSize += encoded.length;
    let node = root;
    for (let depth = 0; depth < bits.length - 1; depth++) {
      const bit = bits[depth]!;
      const child = node.children[bit];
      if (child && 'data' in child) throw new Error(`${network} overlaps another network`);
      if (!child) {
        const created: TreeNode = { children: [null, null], index: -1 };
        node.children[bit] = { node: created };
        node = created;
      } else {
        node = child.node;
      }
    }
    const last = bits[bits.length - 1]!;
    if (node.children[last]) throw new Error(`${network} overlaps another network`);
    node.children[last] = { data: offset };
  }

  // Number the nodes breadth-first (root = 0).
  const nodes: TreeNode[] = [];
  const queue: TreeNode[] = [root];
  while (queue.length > 0) {
    const node = queue.shift()!;
    node.index = nodes.length;
    nodes.push(node);
    for (const child of node.children) if (child && 'node' in child) queue.push(child.node);
  }
  const nodeCount = nodes.length;
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((node, index) => {
    node.children.forEach((child, side) => {
      const value = child === null ? nodeCount : 'node' in child ? child.node.index : nodeCount + 16 + child.data;
      tree.writeUIntBE(value, index * 6 + side * 3, 3);
    });
  });

  const metadata = encode({
    binary_format_major_version: uint(2, 2),
    binary_format_minor_version: uint(0, 2),
    build_epoch: BigInt(options.buildEpochSeconds ?? 1_750_000_000),
    database_type: options.databaseType,
    description: options.description ?? { en: `${options.databaseType} test database` },
    ip_version: uint(options.ipVersion, 2),
    languages: options.languages ?? ['en'],
    node_count: uint(nodeCount, 4),
    record_size: uint(24, 2),
  });
  const marker = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com', 'ascii')]);
  return Buffer.concat([tree, Buffer.alloc(16), ...data, marker, metadata]);
}

/** A number to write as an unsigned integer (uint16 or uint32) rather than a double. */
export class Uint {
  constructor(
    readonly value: number,
    readonly bytes: 2 | 4,
  ) {}
}
/** `accuracy_radius` is a uint16 in GeoIP2 City, `geoname_id` a uint32. */
export function uint(value: number, bytes: 2 | 4): Uint {
  return new Uint(value, bytes);
}

function networkBits(cidr: string, ipVersion: 4 | 6): number[] {
  const [address = '', prefixText] = cidr.split('/');
  const family = isIP(address);
  if (family === 0) throw new Error(`not an address: ${cidr}`);
  const bytes = family === 4 ? ipv4Bytes(address) : ipv6Bytes(address);
  const prefix = prefixText === undefined ? bytes.length * 8 : Number(prefixText);
  let bits: number[] = [];
  for (let i = 0; i < prefix; i++) bits.push((bytes[i >> 3]! >> (7 - (i & 7))) & 1);
  if (family === 4 && ipVersion === 6) bits = [...Array<number>(96).fill(0), ...bits];
  if (family === 6 && ipVersion === 4) throw new Error(`IPv6 network ${cidr} in an IPv4 database`);
  return bits;
}

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

function ipv6Bytes(address: string): number[] {
  const [left = '', right] = address.split('::', 2);
  const l = left === '' ? [] : left.split(':');
  const r = right === undefined || right === '' ? [] : right.split(':');
  const groups = right === undefined ? l : [...l, ...Array<string>(8 - l.length - r.length).fill('0'), ...r];
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

// Data types of the MaxMind DB format.
const UTF8 = 2;
const DOUBLE = 3;
const UINT16 = 5;
const UINT32 = 6;
const MAP = 7;
const UINT64 = 9;
const ARRAY = 11;
const BOOLEAN = 14;

function encode(value: MmdbValue): Buffer {
  if (value instanceof Uint) {
    const payload = unsignedBytes(BigInt(value.value));
    return Buffer.concat([control(value.bytes === 2 ? UINT16 : UINT32, payload.length), payload]);
  }
  if (typeof value === 'string') {
    const payload = Buffer.from(value, 'utf8');
    return Buffer.concat([control(UTF8, payload.length), payload]);
  }
  if (typeof value === 'number') {
    const payload = Buffer.alloc(8);
    payload.writeDoubleBE(value);
    return Buffer.concat([control(DOUBLE, 8), payload]);
  }
  if (typeof value === 'bigint') {
    const payload = unsignedBytes(value);
    return Buffer.concat([control(UINT64, payload.length), payload]);
  }
  if (typeof value === 'boolean') return control(BOOLEAN, value ? 1 : 0);
  if (Array.isArray(value)) return Buffer.concat([control(ARRAY, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  const encoded = entries.flatMap(([key, item]) => [encode(key), encode(item)]);
  return Buffer.concat([control(MAP, entries.length), ...encoded]);
}

function unsignedBytes(value: bigint): Buffer {
  const bytes: number[] = [];
  for (let rest = value; rest > 0n; rest >>= 8n) bytes.unshift(Number(rest & 0xffn));
  return Buffer.from(bytes);
}

/** Control byte(s): type in the top 3 bits (0 + an extended type byte for types > 7), then size. */
function control(type: number, size: number): Buffer {
  const typeBits = type <= 7 ? type << 5 : 0;
  const extended = type <= 7 ? [] : [type - 7];
  let sizeBits: number;
  let sizeBytes: number[];
  if (size < 29) {
    sizeBits = size;
    sizeBytes = [];
  } else if (size < 29 + 256) {
    sizeBits = 29;
    sizeBytes = [size - 29];
  } else if (size < 285 + 65536) {
    sizeBits = 30;
    const rest = size - 285;
    sizeBytes = [rest >> 8, rest & 0xff];
  } else {
    sizeBits = 31;
    const rest = size - 65821;
    sizeBytes = [(rest >> 16) & 0xff, (rest >> 8) & 0xff, rest & 0xff];
  }
  return Buffer.from([typeBits | sizeBits, ...extended, ...sizeBytes]);
}
