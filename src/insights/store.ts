import { sql, type Kysely, type Selectable, type SqlBool } from 'kysely';
import { randomBytes } from 'node:crypto';
import type { Schema } from '../platform/db/schema.js';
import { literalContainsPattern } from '../posthog/property-conditions.js';
import { fromBool, fromJson, nowIso, toJson } from '../platform/db/values.js';
import type { InsightsTable } from './tables.js';

type Db = Kysely<Schema>;

export interface Insight {
  id: number;
  teamId: number;
  shortId: string;
  name: string | null;
  description: string;
  query: unknown;
  tags: string[];
  favorited: boolean;
  deleted: boolean;
  createdById: number | null;
  lastModifiedById: number | null;
  createdAt: string;
  lastModifiedAt: string;
}

function toInsight(row: Selectable<InsightsTable>): Insight {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    shortId: row.short_id,
    name: row.name,
    description: row.description,
    query: fromJson(row.query),
    tags: fromJson<string[]>(row.tags) ?? [],
    favorited: fromBool(row.favorited),
    deleted: fromBool(row.deleted),
    createdById: row.created_by_id === null ? null : Number(row.created_by_id),
    lastModifiedById: row.last_modified_by_id === null ? null : Number(row.last_modified_by_id),
    createdAt: row.created_at,
    lastModifiedAt: row.last_modified_at,
  };
}

const SHORT_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** PostHog's short ids: 8 random alphanumerics, used in insight URLs. */
export function generateShortId(): string {
  return [...randomBytes(8)].map((b) => SHORT_ID_ALPHABET[b % SHORT_ID_ALPHABET.length]).join('');
}

export interface InsightFields {
  name: string | null;
  description: string;
  query: unknown;
  tags: string[];
  favorited: boolean;
  deleted: boolean;
}

export async function insertInsight(db: Db, teamId: number, fields: InsightFields, userId: number): Promise<Insight> {
  const now = nowIso();
  const row = await db
    .insertInto('insights')
    .values({
      team_id: teamId,
      short_id: generateShortId(),
      name: fields.name,
      description: fields.description,
      query: toJson(fields.query),
      tags: toJson(fields.tags),
      favorited: fields.favorited,
      deleted: fields.deleted,
      created_by_id: userId,
      last_modified_by_id: userId,
      created_at: now,
      last_modified_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toInsight(row);
}

export async function updateInsight(db: Db, insight: Insight, fields: InsightFields, userId: number): Promise<Insight> {
  const row = await db
    .updateTable('insights')
    .set({
      name: fields.name,
      description: fields.description,
      query: toJson(fields.query),
      tags: toJson(fields.tags),
      favorited: fields.favorited,
      deleted: fields.deleted,
      last_modified_by_id: userId,
      last_modified_at: nowIso(),
    })
    .where('id', '=', insight.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toInsight(row);
}

export async function getInsight(db: Db, teamId: number, id: number): Promise<Insight | undefined> {
  const row = await db.selectFrom('insights').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return row && toInsight(row);
}

/** The environment an insight belongs to, whatever it is (validation tells "other team" from "missing"). */
export async function insightTeamId(db: Db, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('insights').select('team_id').where('id', '=', id).executeTakeFirst();
  return row ? Number(row.team_id) : undefined;
}

export async function getInsightsByIds(db: Db, ids: number[]): Promise<Map<number, Insight>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('insights').selectAll().where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [Number(r.id), toInsight(r)]));
}

/** What the insights list keeps (PostHog's InsightViewSet `_filter_request`). */
export interface InsightListFilters {
  includeDeleted: boolean;
  /** In the name, the description or a tag, case folded. */
  search?: string | undefined;
  shortId?: string | undefined;
  favoritedOnly?: boolean;
  createdById?: number | undefined;
  /** `saved=false`: Hoglet's insights are all saved, so none. */
  none?: boolean;
}

export async function listInsights(
  db: Db,
  teamId: number,
  options: InsightListFilters & { limit: number; offset: number },
): Promise<{ count: number; insights: Insight[] }> {
  let query = db.selectFrom('insights').where('team_id', '=', teamId);
  if (options.none) query = query.where(sql<SqlBool>`1 = 0`);
  if (!options.includeDeleted) query = query.where('deleted', '=', false);
  if (options.shortId !== undefined) query = query.where('short_id', '=', options.shortId);
  if (options.favoritedOnly) query = query.where('favorited', '=', true);
  if (options.createdById !== undefined) query = query.where('created_by_id', '=', options.createdById);
  // PostHog's icontains: the search's own % and _ are taken as they are, not as wildcards.
  const pattern = options.search ? literalContainsPattern(options.search.toLowerCase()) : null;
  if (pattern !== null) {
    query = query.where(
      sql<SqlBool>`(lower(coalesce(name, '')) like ${pattern} escape '\\' or lower(description) like ${pattern} escape '\\' or lower(cast(tags as text)) like ${pattern} escape '\\')`,
    );
  }
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query
    .selectAll()
    .orderBy('last_modified_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset(options.offset)
    .execute();
  return { count: Number(total?.n ?? 0), insights: rows.map(toInsight) };
}
