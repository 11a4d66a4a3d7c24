/** Every SQL statement of early access features. */
import type { Kysely, Selectable } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromJson, nowIso, toJson } from '../platform/db/values.js';
import { uuidv7 } from '../lib/uuid.js';
import type { EarlyAccessFeaturesTable } from './tables.js';
import type { Stage } from './core/stages.js';

type Db = Kysely<Schema>;

/** A stored early access feature (PostHog's EarlyAccessFeature model). */
export interface EarlyAccessFeature {
  id: string;
  projectId: number;
  teamId: number;
  featureFlagId: number | null;
  name: string;
  description: string;
  stage: Stage;
  documentationUrl: string;
  payload: unknown;
  createdById: number | null;
  createdAt: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toFeature(row: Selectable<EarlyAccessFeaturesTable>): EarlyAccessFeature {
  return {
    id: row.id,
    projectId: Number(row.project_id),
    teamId: Number(row.team_id),
    featureFlagId: row.feature_flag_id === null ? null : Number(row.feature_flag_id),
    name: row.name,
    description: row.description,
    stage: row.stage as Stage,
    documentationUrl: row.documentation_url,
    payload: fromJson<unknown>(row.payload) ?? {},
    createdById: row.created_by_id === null ? null : Number(row.created_by_id),
    createdAt: row.created_at,
  };
}

/** A page of a project's features in creation order, with the count of all of them. */
export async function listFeatures(db: Db, projectId: number, page: { limit: number; offset: number }) {
  const counted = await db
    .selectFrom('early_access_features')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  const rows = await db
    .selectFrom('early_access_features')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(counted?.n ?? 0), features: rows.map(toFeature) };
}

/** The features of a project in these stages, at most `limit` (what posthog-js lists). */
export async function listFeaturesInStages(db: Db, projectId: number, stages: readonly string[], limit: number) {
  if (stages.length === 0) return [];
  const rows = await db
    .selectFrom('early_access_features')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('stage', 'in', [...stages])
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toFeature);
}

export async function getFeature(db: Db, projectId: number, id: string): Promise<EarlyAccessFeature | undefined> {
  if (!UUID.test(id)) return undefined;
  const row = await db
    .selectFrom('early_access_features')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id.toLowerCase())
    .executeTakeFirst();
  return row && toFeature(row);
}

/** The feature a flag is linked to, if any (PostHog's `flag.features`). */
export async function featureOfFlag(db: Db, projectId: number, flagId: number): Promise<EarlyAccessFeature | undefined> {
  const row = await db
    .selectFrom('early_access_features')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('feature_flag_id', '=', flagId)
    .executeTakeFirst();
  return row && toFeature(row);
}

/** The features linked to these flags, by flag id. */
export async function featuresOfFlags(db: Db, projectId: number, flagIds: number[]): Promise<Map<number, EarlyAccessFeature[]>> {
  const byFlag = new Map<number, EarlyAccessFeature[]>();
  if (flagIds.length === 0) return byFlag;
  const rows = await db
    .selectFrom('early_access_features')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('feature_flag_id', 'in', flagIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const feature of rows.map(toFeature)) {
    const list = byFlag.get(feature.featureFlagId!) ?? [];
    list.push(feature);
    byFlag.set(feature.featureFlagId!, list);
  }
  return byFlag;
}

export interface NewFeature {
  projectId: number;
  teamId: number;
  featureFlagId: number;
  name: string;
  description: string;
  stage: Stage;
  documentationUrl: string;
  payload: unknown;
  createdById: number | null;
}

/** Inserts a feature; undefined when its flag was linked to another feature meanwhile (the unique index). */
export async function insertFeature(db: Db, feature: NewFeature): Promise<EarlyAccessFeature | undefined> {
  const row = await db
    .insertInto('early_access_features')
    .values({
      id: uuidv7(),
      project_id: feature.projectId,
      team_id: feature.teamId,
      feature_flag_id: feature.featureFlagId,
      name: feature.name,
      description: feature.description,
      stage: feature.stage,
      documentation_url: feature.documentationUrl,
      payload: toJson(feature.payload),
      created_by_id: feature.createdById,
      created_at: nowIso(),
    })
    .onConflict((oc) => oc.columns(['project_id', 'feature_flag_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  return row && toFeature(row);
}

export type FeatureChanges = Partial<Pick<EarlyAccessFeature, 'name' | 'description' | 'stage' | 'documentationUrl' | 'payload'>>;

export async function updateFeature(db: Db, feature: EarlyAccessFeature, changes: FeatureChanges): Promise<EarlyAccessFeature> {
  const values: Partial<Omit<EarlyAccessFeaturesTable, 'id'>> = {};
  if (changes.name !== undefined) values.name = changes.name;
  if (changes.description !== undefined) values.description = changes.description;
  if (changes.stage !== undefined) values.stage = changes.stage;
  if (changes.documentationUrl !== undefined) values.documentation_url = changes.documentationUrl;
  if (changes.payload !== undefined) values.payload = toJson(changes.payload);
  if (Object.keys(values).length === 0) return feature;
  const row = await db
    .updateTable('early_access_features')
    .set(values)
    .where('project_id', '=', feature.projectId)
    .where('id', '=', feature.id)
    .returningAll()
    .executeTakeFirst();
  return row ? toFeature(row) : feature;
}

export async function deleteFeature(db: Db, feature: EarlyAccessFeature): Promise<void> {
  await db.deleteFrom('early_access_features').where('project_id', '=', feature.projectId).where('id', '=', feature.id).execute();
}
