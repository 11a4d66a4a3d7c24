/**
 * Seeded odd JSON values for the fuzzed requests (fuzz-requests.ts): huge numbers, NUL and lone
 * surrogates, very long strings, nesting past what readers take, repeated and `__proto__` keys,
 * and plausible bodies with a few fields replaced by such values.
 */

/** mulberry32: a small, fast, seeded PRNG. */
export class Random {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** JSON text written as is (numbers JSON.stringify cannot make, broken fragments). */
class Raw {
  constructor(readonly text: string) {}
}
/** An object as ordered entries, so keys may repeat or be `__proto__`. */
class Entries {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

export function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') return toJson(new Entries(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}

const HUGE_NUMBERS = [
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '123456789012345678901234567890',
  '1e308',
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '0.1e1',
  '1E2',
  '4.5',
];
const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ud83d',
  '\uffff',
  '\u2028',
  '💩',
  '%00',
  '\\',
  '"',
  "'; drop table teams; --",
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'null',
  'true',
  '9223372036854775808',
  '-1',
  '1.5',
  '[]',
  '{}',
  '2024-13-45T99:99:99Z',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999+14:00',
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  '.*',
  '(a+)+$',
  '${x}',
  '<script>',
  'a b\tc\nd',
  'phc_',
  'phs_x',
  'phx_x',
];
const FIELD_NAMES = [
  'key',
  'name',
  'filters',
  'groups',
  'properties',
  'active',
  'deleted',
  'tags',
  'description',
  'dashboard',
  'insight',
  'dashboards',
  'query',
  'target_type',
  'target_value',
  'frequency',
  'interval',
  'start_date',
  'byweekday',
  'bysetpos',
  'count',
  'until_date',
  'title',
  'distinct_id',
  'distinct_ids',
  'uuids',
  'ids',
  'person',
  'person_id',
  'person_ids',
  'is_static',
  'csv',
  'version',
  'original_flag',
  'ensure_experience_continuity',
  'evaluation_runtime',
  'bucketing_identifier',
  'is_remote_configuration',
  'timezone',
  'app_urls',
  'type',
  'value',
  'operator',
  'rollout_percentage',
  'variant',
  'multivariate',
  'payloads',
  'aggregation_group_type_index',
  '$set',
  '$unset',
  'main_distinct_id',
  'delete_events',
  'enabled',
  'product_type',
  'intent_context',
  'pinned',
  'viewed',
  'limit',
  'offset',
  'uuid',
];

export function oddString(random: Random): string {
  if (random.chance(0.03)) return random.pick(['x', '\u0000', '\ud800', ' ']).repeat(random.pick([10_000, 100_000, 300_000]));
  if (random.chance(0.3)) return `${random.pick(ODD_STRINGS)}${random.pick(ODD_STRINGS)}`;
  return random.pick(ODD_STRINGS);
}

/** Any JSON value, odd ones favoured. */
export function fuzzValue(random: Random, depth = 0): unknown {
  const roll = random.int(depth > 2 ? 6 : 9);
  switch (roll) {
    case 0:
    case 1:
      return oddString(random);
    case 2:
    case 3:
      return new Raw(random.pick(HUGE_NUMBERS));
    case 4:
      return random.pick([null, true, false, 0, 1, -1]);
    case 5:
      return random.chance(0.5) ? String(random.int(100)) : new Raw(random.pick(['{}', '[]', '""', '[null]', '{"":null}']));
    case 6:
      return Array.from({ length: random.int(4) }, () => fuzzValue(random, depth + 1));
    case 7:
      return new Entries(
        Array.from({ length: 1 + random.int(3) }, () => [
          random.chance(0.7) ? random.pick(FIELD_NAMES) : oddString(random),
          fuzzValue(random, depth + 1),
        ]),
      );
    default:
      return deep(random);
  }
}

/** Nesting past what JSON readers and recursive code take. */
function deep(random: Random): Raw {
  const n = random.pick([100, 999, 1001, 5000, 50_000]);
  return random.chance(0.5) ? new Raw('['.repeat(n) + ']'.repeat(n)) : new Raw('{"a":'.repeat(n) + '1' + '}'.repeat(n));
}

/** A plausible body with one to three fields replaced or added. */
export function mutate(random: Random, template: Record<string, unknown>): Entries {
  const entries = Object.entries(template);
  for (let i = 1 + random.int(3); i > 0; i--) {
    const key = random.chance(0.7) && entries.length ? random.pick(entries)[0] : random.pick(FIELD_NAMES);
    const at = entries.findIndex(([k]) => k === key);
    const value = random.chance(0.25) ? mutateNested(random, template[key]) : fuzzValue(random);
    if (at >= 0 && random.chance(0.9)) entries[at] = [key, value];
    else entries.push([key, value]);
  }
  return new Entries(entries);
}

/** Replaces one leaf of a nested template value, keeping the rest of its shape. */
function mutateNested(random: Random, value: unknown): unknown {
  if (Array.isArray(value))
    return value.length ? value.map((item, i) => (i === 0 ? mutateNested(random, item) : item)) : [fuzzValue(random)];
  if (value !== null && typeof value === 'object') return mutate(random, value as Record<string, unknown>);
  return fuzzValue(random);
}
