/**
 * A project's flags and cohorts, held in memory per project so `/decide` and `/flags` do not read
 * them on every request. Entries are dropped when a `feature_flags` change is announced (flag or
 * cohort edits, here or in another process via the change bus); a short lifetime heals a missed
 * notice. A load that raced with a change is not kept.
 */
import type { AppContext } from '../context.js';
import { listProjectCohorts, type Cohort } from '../cohorts/store.js';
import type { FlagDefinition, FlagDefinitions, PropertyGroup } from './engine/index.js';
import { minimalFlag } from './serializers.js';
import { FLAGS_TOPIC } from './service.js';
import { listProjectFlags, type FeatureFlag } from './store.js';

const TTL_MS = 30_000;

export interface ProjectFlags {
  /** Non-deleted flags, newest first. */
  flags: FeatureFlag[];
  /** Every cohort of the project, deleted ones included. */
  cohorts: Cohort[];
  /** What the engine evaluates against (group type mapping filled in per request). */
  definitions: FlagDefinitions & { flags: FlagDefinition[] };
  /** Ids of the live static cohorts, whose membership is read per person. */
  staticCohortIds: number[];
  /** Any active flag with ensure_experience_continuity. */
  hasContinuityFlags: boolean;
  /** Any active flag (the config's `hasFeatureFlags`, read on every decide request). */
  hasActiveFlags: boolean;
}

/** A cohort as the engine reads it: its property group, or null (matches nobody). */
export function cohortDefinition(cohort: Cohort): PropertyGroup | null {
  const properties = cohort.filters?.properties;
  return properties && typeof properties === 'object' ? (properties as PropertyGroup) : null;
}

/**
 * A project's cohorts as the engine's cohort matcher takes them: the live dynamic ones' definitions
 * by id, and the ids of the live static ones (whose members are read per person).
 */
export function liveCohortInputs(cohorts: readonly Cohort[]): { dynamic: Record<string, PropertyGroup | null>; staticIds: number[] } {
  const dynamic: Record<string, PropertyGroup | null> = {};
  const staticIds: number[] = [];
  for (const cohort of cohorts) {
    if (cohort.deleted) continue;
    if (cohort.isStatic) staticIds.push(cohort.id);
    else dynamic[String(cohort.id)] = cohortDefinition(cohort);
  }
  return { dynamic, staticIds };
}

export async function loadProjectFlags(ctx: AppContext, projectId: number): Promise<ProjectFlags> {
  const { db } = ctx.database;
  const [flags, cohorts] = await Promise.all([listProjectFlags(db, projectId), listProjectCohorts(db, projectId)]);
  const { dynamic, staticIds: staticCohortIds } = liveCohortInputs(cohorts);
  return {
    flags,
    cohorts,
    definitions: {
      flags: flags.map((flag) => minimalFlag(flag) as FlagDefinition),
      cohorts: dynamic,
      static_cohort_ids: staticCohortIds,
    },
    staticCohortIds,
    hasContinuityFlags: flags.some((f) => f.active && f.ensureExperienceContinuity),
    hasActiveFlags: flags.some((f) => f.active),
  };
}

export class FlagDefinitionsCache {
  /** `loaded` is the value once its load has settled and is still current. */
  private readonly entries = new Map<number, { value: Promise<ProjectFlags>; expires: number; loaded?: ProjectFlags }>();
  /** Bumped per project on every change, so a load that started before it is not cached. */
  private readonly generations = new Map<number, number>();

  constructor(private readonly ctx: AppContext) {
    ctx.changes.on(FLAGS_TOPIC, (change) => (change.everything ? this.dropAll() : this.drop(Number(change.id))));
  }

  /** Every project's entry, and loads under way are not kept (their generation moves on). */
  private dropAll(): void {
    for (const projectId of new Set([...this.entries.keys(), ...this.generations.keys()])) this.drop(projectId);
  }

  private drop(projectId: number): void {
    this.entries.delete(projectId);
    this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
  }

  /**
   * The project's loaded, unexpired entry without waiting, else undefined (then `get`): decide
   * reads it on every request, and awaiting a settled promise costs a turn of the microtask
   * queue and its allocations each time.
   */
  loaded(projectId: number): ProjectFlags | undefined {
    const cached = this.entries.get(projectId);
    return cached && cached.expires > Date.now() ? cached.loaded : undefined;
  }

  get(projectId: number): Promise<ProjectFlags> {
    const now = Date.now();
    const cached = this.entries.get(projectId);
    if (cached && cached.expires > now) return cached.value;
    const generation = this.generations.get(projectId) ?? 0;
    const value = loadProjectFlags(this.ctx, projectId);
    this.entries.set(projectId, { value, expires: now + TTL_MS });
    const forget = () => {
      if (this.entries.get(projectId)?.value === value) this.entries.delete(projectId);
    };
    value.then((loaded) => {
      if ((this.generations.get(projectId) ?? 0) !== generation) return forget();
      const entry = this.entries.get(projectId);
      if (entry?.value === value) entry.loaded = loaded;
    }, forget);
    return value;
  }
}

const caches = new WeakMap<AppContext, FlagDefinitionsCache>();

/** The one cache of this server (its context). */
export function flagDefinitionsCache(ctx: AppContext): FlagDefinitionsCache {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new FlagDefinitionsCache(ctx)));
  return cache;
}
