import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromJson, toJson } from '../platform/db/values.js';
import { uuidv7 } from '../lib/uuid.js';

type Db = Kysely<Schema>;

/** One field's change, in PostHog's activity-log shape. */
export interface ActivityChange {
  type: string;
  action: 'changed' | 'created' | 'deleted' | 'split';
  /** Null where PostHog names none (a person's `delete_property` and `split`). */
  field: string | null;
  before: unknown;
  after: unknown;
}

export interface Actor {
  userId: number | null;
  apiKeyId?: string | null;
}

export interface ActivityEntry {
  organizationId: string | null;
  teamId: number | null;
  /** PostHog's scope name: `Team`, `FeatureFlag`, `Subscription`, … */
  scope: string;
  itemId: string | number;
  activity: 'created' | 'updated' | 'deleted' | string;
  actor: Actor;
  /** The item's display name, kept so a deleted item's history still reads well. */
  name?: string | null;
  shortId?: string | null;
  changes?: ActivityChange[];
  trigger?: unknown;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The field-level diff between two versions of an object: one `changed` entry per field whose
 * value differs. `exclude` lists fields too noisy or sensitive to log (timestamps, tokens' secrets).
 */
export function diffFields(
  type: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  exclude: readonly string[] = [],
): ActivityChange[] {
  const skip = new Set(exclude);
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((f) => !skip.has(f));
  return fields
    .filter((field) => !sameValue(before[field], after[field]))
    .map((field) => ({ type, action: 'changed' as const, field, before: before[field] ?? null, after: after[field] ?? null }));
}

/** Records one entry; call it inside the transaction that made the change. */
export async function recordActivity(db: Db, entry: ActivityEntry): Promise<void> {
  await db
    .insertInto('activity_log')
    .values({
      id: uuidv7(),
      organization_id: entry.organizationId,
      team_id: entry.teamId,
      scope: entry.scope,
      item_id: String(entry.itemId),
      activity: entry.activity,
      user_id: entry.actor.userId,
      api_key_id: entry.actor.apiKeyId ?? null,
      detail: toJson({
        id: null,
        changes: entry.changes ?? null,
        merge: null,
        trigger: entry.trigger ?? null,
        name: entry.name ?? null,
        short_id: entry.shortId ?? null,
        type: null,
      }),
      created_at: new Date().toISOString(),
    })
    .execute();
}

export interface ActivityRecord {
  id: string;
  scope: string;
  itemId: string;
  activity: string;
  userId: number | null;
  detail: Record<string, unknown>;
  createdAt: string;
}

/** An item's history (or a scope's, without itemId), newest first. */
export async function listActivity(
  db: Db,
  filter: { scope: string; itemId?: string; teamId?: number },
  page: { limit: number; offset: number },
): Promise<{ total: number; records: ActivityRecord[] }> {
  let query = db.selectFrom('activity_log').where('scope', '=', filter.scope);
  if (filter.itemId !== undefined) query = query.where('item_id', '=', filter.itemId);
  if (filter.teamId !== undefined) query = query.where('team_id', '=', filter.teamId);
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
  return {
    total: Number(total?.n ?? 0),
    records: rows.map((r) => ({
      id: r.id,
      scope: r.scope,
      itemId: r.item_id,
      activity: r.activity,
      userId: r.user_id === null ? null : Number(r.user_id),
      detail: fromJson<Record<string, unknown>>(r.detail) ?? {},
      createdAt: r.created_at,
    })),
  };
}

/** The names the entries' authors are shown with (users by id; none asked, none read). */
export async function activityAuthors(
  db: Db,
  userIds: number[],
): Promise<Array<{ id: number | string; first_name: string; email: string }>> {
  if (userIds.length === 0) return [];
  return db.selectFrom('users').select(['id', 'first_name', 'email']).where('id', 'in', userIds).execute();
}
