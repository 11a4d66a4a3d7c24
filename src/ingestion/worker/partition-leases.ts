/**
 * The queue partitions this worker holds, through leases shared by every worker on the database
 * (core/partition-share.ts decides what to claim and give back). A renewal is two statements in
 * the steady state: extend all of this worker's leases (its membership and its partitions), and
 * read every worker's; claims and give-backs add one each when they happen.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Schema } from '../../platform/db/schema.js';
import { claimLeases, dropLapsedLeases, holdsLeasesReading, readLeases, releaseLeases, renewLeases } from '../../platform/lease.js';
import {
  memberLeaseName,
  PARTITION_LEASE_PREFIX,
  partitionLeaseName,
  planPartitionShare,
  MEMBER_LEASE_PREFIX,
} from '../core/partition-share.js';

/** The leases of ingestion workers (partitions and memberships); not the old whole-queue 'ingestion-worker'. */
const PREFIX = 'ingestion-';

export class PartitionLeases {
  /** The partitions held as of the last renewal, ascending. */
  private heldList: number[] = [];
  /** When the leases were last renewed (ms; 0: never, or given up). */
  renewedAt = 0;
  /** Live workers and this worker's fair share as of the last renewal. */
  private members = 0;
  private share = 0;
  /**
   * A batch's fence saw the fleet change since the last renewal (a worker joined or left, or
   * partitions this worker is short of came free): renew at the next round, not a third of a
   * lease time later, so a clean join or leave hands partitions over within a batch or two.
   */
  renewDue = false;

  constructor(
    private readonly db: Kysely<Schema>,
    private readonly owner: string,
    /** The queue's partitions (core/partition.ts). */
    readonly partitions: number,
    private readonly ttlMs: number,
    private readonly log: Logger,
  ) {}

  get held(): readonly number[] {
    return this.heldList;
  }

  /** Whether this worker holds every partition (caches other workers could invalidate are trusted only then). */
  get holdsAll(): boolean {
    return this.heldList.length === this.partitions;
  }

  /**
   * Renews this worker's leases and moves towards its fair share; returns whether the partitions
   * held changed (what was read ahead, or kept, for the others then may be stale).
   */
  async renew(): Promise<boolean> {
    const now = Date.now();
    const renewed = await renewLeases(this.db, PREFIX, this.owner, this.ttlMs);
    let leases = await readLeases(this.db, PREFIX);
    const member = memberLeaseName(this.owner);
    if (renewed === 0 || !leases.some((lease) => lease.name === member && lease.owner === this.owner)) {
      await claimLeases(this.db, [member], this.owner, this.ttlMs);
      leases = [
        ...leases.filter((lease) => lease.name !== member),
        { name: member, owner: this.owner, expires_at: new Date(now).toISOString() },
      ];
    }
    const views = leases.map((lease) => ({ name: lease.name, owner: lease.owner, expiresAt: Date.parse(lease.expires_at) }));
    const plan = planPartitionShare(this.owner, this.partitions, views, now);
    let held = plan.held;
    if (plan.release.length > 0) {
      await releaseLeases(this.db, this.owner, PARTITION_LEASE_PREFIX, plan.release.map(partitionLeaseName));
      held = held.filter((partition) => !plan.release.includes(partition));
    }
    if (plan.claim.length > 0) {
      const taken = await claimLeases(this.db, plan.claim.map(partitionLeaseName), this.owner, this.ttlMs);
      held = [...held, ...taken.map((name) => Number(name.slice(PARTITION_LEASE_PREFIX.length)))].sort((a, b) => a - b);
    }
    // Memberships of workers gone for a while: they would only be read again at every renewal.
    if (views.some((lease) => lease.name.startsWith(MEMBER_LEASE_PREFIX) && lease.expiresAt < now - this.ttlMs))
      await dropLapsedLeases(this.db, MEMBER_LEASE_PREFIX, new Date(now - this.ttlMs));
    this.renewedAt = now;
    this.renewDue = false;
    this.members = plan.members;
    this.share = plan.share;
    // A partition lost and claimed back in one renewal counts as a change too: its rows may have been processed by another meanwhile.
    const kept = plan.held.length === this.heldList.length && plan.held.every((partition, i) => partition === this.heldList[i]);
    const changed = !kept || plan.claim.length > 0 || plan.release.length > 0;
    if (changed)
      this.log.info(
        { owner: this.owner, partitions: held, released: plan.release, members: plan.members, share: plan.share },
        'ingestion partitions changed',
      );
    this.heldList = held;
    return changed;
  }

  /**
   * Extends the leases held, nothing else (the share is looked at at the next round): a batch run
   * again after conflicts, or event by event, can outlast a lease, and its partitions would go to
   * another worker while it still works on them. Only this worker's live leases are extended: one
   * taken meanwhile stays taken, and the renewal at the next round sees it.
   */
  async extend(): Promise<void> {
    const now = Date.now();
    const extended = await renewLeases(this.db, PREFIX, this.owner, this.ttlMs);
    // Its membership and each partition held: anything else is a change the next round must look at.
    if (extended === this.heldList.length + 1) this.renewedAt = now;
    else this.renewDue = true;
  }

  /**
   * In a batch's transaction: whether this worker still holds every partition of the batch. A
   * fence (holdsLeasesReading): another worker taking one of them over waits for the transaction. With
   * `counter`, that counter's value is read in the same statement (undefined: no partition).
   */
  async fence(
    trx: Kysely<Schema>,
    partitions: readonly number[],
    counter?: string,
  ): Promise<{ held: boolean; counter: number | undefined }> {
    const read = await holdsLeasesReading(trx, partitions.map(partitionLeaseName), this.owner, counter, {
      ownersOf: [MEMBER_LEASE_PREFIX, PARTITION_LEASE_PREFIX],
      countOf: PARTITION_LEASE_PREFIX,
      at: new Date(),
    });
    // Live workers counted as the plan counts them, so a steady fleet never asks for a renewal.
    const { owners, leases } = read.live ?? { owners: this.members, leases: this.partitions };
    if (owners !== this.members || (this.heldList.length < this.share && leases < this.partitions)) this.renewDue = true;
    return { held: read.held, counter: read.counter };
  }

  /** Found in a batch's transaction that a partition was taken: held again only after a renewal. */
  lost(): void {
    this.heldList = [];
    this.renewedAt = 0;
    this.renewDue = true;
  }

  /** Gives up every lease of this worker (on stop): the others take its partitions at once. */
  async release(): Promise<void> {
    this.heldList = [];
    this.renewedAt = 0;
    await releaseLeases(this.db, this.owner, PREFIX);
  }
}
