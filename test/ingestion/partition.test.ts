/**
 * The queue's partitions (core/partition.ts) and how workers share them (core/partition-share.ts).
 */
import { describe, expect, it } from 'vitest';
import { partitionCount, POSTGRES_PARTITIONS, queuePartition } from '../../src/ingestion/core/partition.js';
import { memberLeaseName, partitionLeaseName, planPartitionShare, type LeaseView } from '../../src/ingestion/core/partition-share.js';

/** FNV-1a of the UTF-8 bytes, written the plain way: what queuePartition must equal. */
function reference(teamId: number, distinctId: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(`${teamId}:${distinctId}`)) hash = Math.imul(hash ^ byte, 0x01000193);
  return (hash >>> 0) % partitions;
}

describe('queuePartition', () => {
  it('has 16 partitions on PostgreSQL and one on SQLite', () => {
    expect(partitionCount('postgres')).toBe(16);
    expect(POSTGRES_PARTITIONS).toBe(16);
    expect(partitionCount('sqlite')).toBe(1);
    for (const id of ['a', 'user-1', '']) expect(queuePartition(7, id, 1)).toBe(0);
  });

  it('is FNV-1a of the UTF-8 bytes of team:distinct id, fixed forever (it is stored in rows)', () => {
    // Values computed once; a change here would send queued rows to the wrong workers.
    expect([queuePartition(1, 'user-1', 16), queuePartition(1, 'user-2', 16), queuePartition(2, 'user-1', 16)]).toEqual([
      reference(1, 'user-1', 16),
      reference(1, 'user-2', 16),
      reference(2, 'user-1', 16),
    ]);
    expect(queuePartition(1, 'a', 2 ** 32 - 1)).toBe(reference(1, 'a', 2 ** 32 - 1));
    const samples = ['', 'a', 'é', '日本語', '😀 emoji', 'mixed-ü-😀-日', 'x'.repeat(300), '\u0000nul', '\u007f\u0080\u07ff\u0800\uffff'];
    for (const id of samples) for (const team of [1, 42, 123456789]) expect(queuePartition(team, id, 16)).toBe(reference(team, id, 16));
    // A lone surrogate is hashed as TextEncoder writes it (U+FFFD).
    for (const id of ['\ud800', 'a\udc00b', 'z\ud83d']) expect(queuePartition(3, id, 16)).toBe(reference(3, id, 16));
  });

  it('is the same at every call, and spreads distinct ids over the partitions', () => {
    const counts = new Array<number>(16).fill(0);
    let unstable = 0;
    for (let i = 0; i < 16_000; i++) {
      const id = `user-${i}`;
      const partition = queuePartition(5, id, 16);
      if (queuePartition(5, id, 16) !== partition) unstable++;
      counts[partition]!++; // out of range: NaN counts, caught below
    }
    expect(unstable).toBe(0);
    expect(counts).toHaveLength(16);
    // 1000 expected each: every partition within 15% of it.
    for (const count of counts) {
      expect(count).toBeGreaterThan(850);
      expect(count).toBeLessThan(1150);
    }
    // Uuid-like ids too.
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++)
      seen.add(queuePartition(1, `0190f${i.toString(16).padStart(3, '0')}-7b2c-7000-8000-00000000000${i % 10}`, 16));
    expect(seen.size).toBe(16);
  });
});

const NOW = 1_000_000;
const partitionLease = (partition: number, owner: string, expiresAt = NOW + 10_000): LeaseView => ({
  name: partitionLeaseName(partition),
  owner,
  expiresAt,
});
const member = (owner: string, expiresAt = NOW + 10_000): LeaseView => ({ name: memberLeaseName(owner), owner, expiresAt });

describe('planPartitionShare', () => {
  it('claims every partition when alone', () => {
    const plan = planPartitionShare('a', 16, [member('a')], NOW);
    expect(plan).toMatchObject({ held: [], release: [], members: 1, share: 16 });
    expect(plan.claim).toEqual([...Array(16).keys()]);
    expect(planPartitionShare('a', 1, [], NOW)).toMatchObject({ claim: [0], share: 1, members: 1 });
  });

  it('gives back what is above its fair share when a worker joins', () => {
    const all = [...Array(16).keys()].map((p) => partitionLease(p, 'a'));
    const plan = planPartitionShare('a', 16, [...all, member('a'), member('b')], NOW);
    expect(plan).toMatchObject({ members: 2, share: 8, claim: [] });
    expect(plan.release).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    // The newcomer gets those once given back (and none that are held meanwhile).
    const kept = all.slice(0, 8);
    const newcomer = planPartitionShare('b', 16, [...kept, member('a'), member('b')], NOW);
    expect(newcomer.claim).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect(newcomer.release).toEqual([]);
  });

  it('claims up to ceil(partitions / members), never one that is held and live', () => {
    const leases = [member('a'), member('b'), member('c'), ...[0, 1, 2, 3, 4, 5].map((p) => partitionLease(p, 'a'))];
    const plan = planPartitionShare('c', 16, leases, NOW);
    expect(plan.share).toBe(6);
    expect(plan.claim).toHaveLength(6);
    for (const partition of plan.claim) expect(partition).toBeGreaterThanOrEqual(6);
    expect([...plan.claim].sort((x, y) => x - y)).toEqual(plan.claim);
    // With 17 workers for 16 partitions, each holds at most one.
    const many = Array.from({ length: 17 }, (_, i) => member(`w${i}`));
    expect(planPartitionShare('w0', 16, many, NOW)).toMatchObject({ share: 1 });
  });

  it("takes over a dead worker's partitions once their leases lapse, and stops counting it", () => {
    const dead = [member('b', NOW - 1), ...[8, 9, 10].map((p) => partitionLease(p, 'b', NOW - 1))];
    const mine = [member('a'), ...[0, 1, 2, 3, 4, 5, 6, 7].map((p) => partitionLease(p, 'a'))];
    const plan = planPartitionShare('a', 16, [...mine, ...dead], NOW);
    expect(plan).toMatchObject({ members: 1, share: 16, release: [] });
    expect(plan.claim).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    // Still live: they stay the other worker's.
    const live = planPartitionShare('a', 16, [...mine, member('b'), ...[8, 9, 10].map((p) => partitionLease(p, 'b'))], NOW);
    expect(live).toMatchObject({ members: 2, share: 8, claim: [], release: [] });
  });

  it('counts a worker whose membership lapsed but whose partition leases are live', () => {
    const plan = planPartitionShare('a', 16, [member('a'), member('b', NOW - 1), partitionLease(3, 'b')], NOW);
    expect(plan.members).toBe(2);
    expect(plan.claim).not.toContain(3);
    expect(plan.claim).toHaveLength(8);
  });

  it('ignores leases that are not of this queue or out of range', () => {
    const plan = planPartitionShare(
      'a',
      4,
      [
        member('a'),
        { name: 'ingestion-worker', owner: 'old', expiresAt: NOW + 1 },
        partitionLease(9, 'x'),
        { name: 'ingestion-partition-x', owner: 'y', expiresAt: NOW + 1 },
      ],
      NOW,
    );
    expect(plan).toMatchObject({ members: 1, share: 4, claim: [0, 1, 2, 3] });
  });

  it('claims from a place that depends on the owner, so workers starting together mostly differ', () => {
    const leases = [member('a'), member('b'), member('c'), member('d')];
    const claims = ['a', 'b', 'c', 'd'].map((owner) => planPartitionShare(owner, 16, leases, NOW).claim);
    for (const claim of claims) expect(claim).toHaveLength(4);
    expect(new Set(claims.map((c) => c.join(','))).size).toBeGreaterThan(1);
  });
});
