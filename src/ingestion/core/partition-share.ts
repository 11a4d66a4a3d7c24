/**
 * Which queue partitions a worker claims and gives back (worker/partition-leases.ts does it). Every
 * live worker renews a membership lease and one lease per partition it holds; at each renewal it
 * looks at all of them and moves towards its fair share, ceil(partitions / live workers):
 * - above it, it gives back the extra (a newcomer gets its share at the holders' next renewal,
 *   which a batch's fence brings forward when it sees the live workers change);
 * - below it, it claims partitions nobody holds, or whose holder let the lease lapse (it died).
 * Pure: the leases as read, and the time.
 */

export const PARTITION_LEASE_PREFIX = 'ingestion-partition-';
export const MEMBER_LEASE_PREFIX = 'ingestion-member-';

export function partitionLeaseName(partition: number): string {
  return `${PARTITION_LEASE_PREFIX}${partition}`;
}

export function memberLeaseName(owner: string): string {
  return `${MEMBER_LEASE_PREFIX}${owner}`;
}

/** A lease row as read: its name, holder, and when it lapses (ms since the epoch). */
export interface LeaseView {
  name: string;
  owner: string;
  expiresAt: number;
}

export interface SharePlan {
  /** The partitions this worker holds now (its leases, as renewed just before the read). */
  held: number[];
  /** Partitions to claim: free, or lapsed. */
  claim: number[];
  /** Partitions to give back: held above the fair share. */
  release: number[];
  /** Live workers, this one included. */
  members: number;
  /** The most partitions each worker holds. */
  share: number;
}

/**
 * The plan for `owner` given every ingestion lease read at `now`. A worker counts as live while
 * its membership lease or any of its partition leases has not lapsed. Claims start at a place
 * that depends on the owner, so workers starting together mostly ask for different partitions
 * (the claim itself is conditional: of two asking for one partition, one gets it).
 */
export function planPartitionShare(owner: string, partitions: number, leases: readonly LeaseView[], now: number): SharePlan {
  const members = new Set<string>([owner]);
  const holder = new Map<number, LeaseView>();
  for (const lease of leases) {
    const live = lease.expiresAt >= now;
    if (lease.name.startsWith(MEMBER_LEASE_PREFIX)) {
      if (live) members.add(lease.owner);
      continue;
    }
    if (!lease.name.startsWith(PARTITION_LEASE_PREFIX)) continue;
    const partition = Number(lease.name.slice(PARTITION_LEASE_PREFIX.length));
    if (!Number.isInteger(partition) || partition < 0 || partition >= partitions) continue;
    holder.set(partition, lease);
    if (live) members.add(lease.owner);
  }
  const share = Math.ceil(partitions / members.size);
  const held: number[] = [];
  for (let partition = 0; partition < partitions; partition++) if (holder.get(partition)?.owner === owner) held.push(partition);
  if (held.length > share) return { held, claim: [], release: held.slice(share), members: members.size, share };
  const claim: number[] = [];
  const start = ownerOffset(owner, partitions);
  for (let i = 0; i < partitions && held.length + claim.length < share; i++) {
    const partition = (start + i) % partitions;
    const lease = holder.get(partition);
    if (!lease || (lease.owner !== owner && lease.expiresAt < now)) claim.push(partition);
  }
  claim.sort((a, b) => a - b); // claimed in one order by everyone: no deadlock between claims
  return { held, claim, release: [], members: members.size, share };
}

function ownerOffset(owner: string, partitions: number): number {
  let hash = 0;
  for (let i = 0; i < owner.length; i++) hash = (Math.imul(hash, 31) + owner.charCodeAt(i)) | 0;
  return (hash >>> 0) % partitions;
}
