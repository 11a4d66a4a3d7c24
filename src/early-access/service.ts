/**
 * Early access features: PostHog's EarlyAccessFeatureSerializer (create, update) and the view's
 * destroy. Every change to the linked flag goes through the flags service, so its validation,
 * version, activity log and the definitions caches of every process stay right.
 */
import type { AppContext } from '../context.js';
import type { Team, User } from '../environments/models.js';
import { serializeUserBasic } from '../environments/serializers.js';
import { getUser } from '../environments/tenancy-store.js';
import { effectiveFilters, minimalFlag } from '../flags/serializers.js';
import { createFlag, editFlag } from '../flags/service.js';
import { flagKeysByIds, getFlag, type FeatureFlag } from '../flags/store.js';
import { isJsonObject } from '../lib/json-object.js';
import { DRF_MESSAGES, FieldError, parseChoice, parseInteger, parseString } from '../posthog/drf-fields.js';
import { validationError } from '../posthog/errors.js';
import { serializerData } from '../posthog/fields.js';
import {
  enrollmentFilters,
  isActiveStage,
  isValidUrl,
  newFlagFilters,
  pyTruthy,
  slugify,
  stageChangeFilters,
  DEFAULT_PUBLIC_STAGES,
  STAGES,
  type Stage,
} from './core/stages.js';
import { publicFeature } from './core/public-feature.js';
import {
  deleteFeature,
  featureOfFlag,
  insertFeature,
  listFeaturesInStages,
  updateFeature,
  type EarlyAccessFeature,
  type FeatureChanges,
} from './store.js';

type Json = Record<string, unknown>;

const NAME_MAX = 200;
const URL_MAX = 800;

/** Runs a DRF field parser, turning its failure into PostHog's envelope on `attr`. */
function field<T>(attr: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof FieldError) throw validationError(error.detail, attr, error.code);
    throw error;
  }
}

function notNull(value: unknown, attr: string): void {
  if (value === null) throw validationError(DRF_MESSAGES.null, attr, 'null');
}

/**
 * The writable fields in the serializer's order (DRF reports the first failing one): name,
 * description, stage, documentation_url, then `payload` (create only; an update takes it as sent).
 * `partial`: PATCH, where nothing is required.
 */
function readFields(body: Json, partial: boolean): FeatureChanges {
  const changes: FeatureChanges = {};
  if ('name' in body) {
    notNull(body.name, 'name');
    changes.name = field('name', () => parseString(body.name, { allowBlank: false, maxLength: NAME_MAX }));
  } else if (!partial) throw validationError(DRF_MESSAGES.required, 'name', 'required');
  if ('description' in body) {
    notNull(body.description, 'description');
    changes.description = field('description', () => parseString(body.description, { allowBlank: true }));
  }
  if ('stage' in body) {
    notNull(body.stage, 'stage');
    changes.stage = field('stage', () => parseChoice(body.stage, STAGES));
  } else if (!partial) throw validationError(DRF_MESSAGES.required, 'stage', 'required');
  if ('documentation_url' in body) {
    notNull(body.documentation_url, 'documentation_url');
    const url = field('documentation_url', () => parseString(body.documentation_url, { allowBlank: true, maxLength: URL_MAX }));
    if (url !== '' && !isValidUrl(url)) throw validationError('Enter a valid URL.', 'documentation_url', 'invalid');
    changes.documentationUrl = url;
  }
  return changes;
}

/** PostHog's `validate` of the create serializer: the flag to link, if one is named. */
async function flagToLink(ctx: AppContext, team: Team, raw: unknown): Promise<FeatureFlag | undefined> {
  notNull(raw, 'feature_flag_id');
  const id = field('feature_flag_id', () => parseInteger(raw, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  if (!id) return undefined; // `if feature_flag_id:` — 0 links nothing
  const flag = await getFlag(ctx.database.db, team.projectId, id);
  // A soft-deleted flag is as missing as an absent one: linking it would revive nothing (PostHog's
  // lookup excludes deleted flags).
  if (!flag || flag.deleted) throw validationError('Feature Flag with this ID does not exist');
  if (await featureOfFlag(ctx.database.db, team.projectId, flag.id)) {
    throw validationError(`Linked feature flag ${flag.key} already has a feature attached to it.`);
  }
  const filters = flag.filters;
  if (filters.aggregation_group_type_index !== undefined && filters.aggregation_group_type_index !== null) {
    throw validationError('Group-based feature flags are not supported for Early Access Features.');
  }
  const multivariate = isJsonObject(filters.multivariate) ? filters.multivariate : {};
  if (Array.isArray(multivariate.variants) && multivariate.variants.length > 0) {
    throw validationError('Multivariate feature flags are not supported for Early Access Features.');
  }
  return flag;
}

const alreadyLinked = (flag: FeatureFlag) => validationError(`Linked feature flag ${flag.key} already has a feature attached to it.`);

export async function createFeature(ctx: AppContext, team: Team, user: User, raw: unknown): Promise<EarlyAccessFeature> {
  const body = serializerData(raw);
  const changes = readFields(body, false);
  let payload: unknown = {};
  if ('payload' in body) {
    notNull(body.payload, 'payload');
    payload = body.payload;
  }
  const linked = 'feature_flag_id' in body ? await flagToLink(ctx, team, body.feature_flag_id) : undefined;
  const stage = changes.stage!;

  let flag: FeatureFlag;
  if (linked) {
    flag = linked;
    if (isActiveStage(stage)) {
      flag = await editFlag(ctx, team, user, linked, { filters: enrollmentFilters(effectiveFilters(linked.filters), true) }, 'PATCH');
    }
  } else {
    flag = await createFlag(ctx, team, user, {
      key: slugify(changes.name!),
      name: `Feature Flag for Early Access Feature ${changes.name!}`,
      filters: newFlagFilters(stage),
    });
  }
  const feature = await insertFeature(ctx.database.db, {
    projectId: team.projectId,
    teamId: team.id,
    featureFlagId: flag.id,
    name: changes.name!,
    description: changes.description ?? '',
    stage,
    documentationUrl: changes.documentationUrl ?? '',
    payload,
    createdById: user.id,
  });
  if (!feature) throw alreadyLinked(flag);
  return feature;
}

export async function editFeature(
  ctx: AppContext,
  team: Team,
  user: User,
  feature: EarlyAccessFeature,
  raw: unknown,
  method: 'PATCH' | 'PUT',
): Promise<EarlyAccessFeature> {
  const body = serializerData(raw);
  const changes = readFields(body, method === 'PATCH');
  if ('payload' in body) changes.payload = pyTruthy(body.payload) ? body.payload : {};

  const flag = feature.featureFlagId === null ? undefined : await getFlag(ctx.database.db, team.projectId, feature.featureFlagId);
  const plan = flag && stageChangeFilters(effectiveFilters(flag.filters), feature.stage, changes.stage, pyTruthy(body.rollout_to_all));
  if (flag && plan) await editFlag(ctx, team, user, flag, { filters: plan.filters }, 'PATCH');
  return updateFeature(ctx.database.db, feature, changes);
}

/** Deleting a feature first clears its flag's enrollment condition; the flag itself stays. */
export async function removeFeature(ctx: AppContext, team: Team, user: User, feature: EarlyAccessFeature): Promise<void> {
  const flag = feature.featureFlagId === null ? undefined : await getFlag(ctx.database.db, team.projectId, feature.featureFlagId);
  if (flag) await editFlag(ctx, team, user, flag, { filters: enrollmentFilters(effectiveFilters(flag.filters), null) }, 'PATCH');
  await deleteFeature(ctx.database.db, feature);
}

/** EarlyAccessFeatureSerializer, in PostHog's field order. */
export async function serializeFeature(ctx: AppContext, feature: EarlyAccessFeature) {
  const { db } = ctx.database;
  const [flag, creator] = await Promise.all([
    feature.featureFlagId === null ? undefined : getFlag(db, feature.projectId, feature.featureFlagId),
    feature.createdById === null ? undefined : getUser(db, feature.createdById),
  ]);
  return {
    id: feature.id,
    feature_flag: flag ? minimalFlag(flag) : null,
    name: feature.name,
    description: feature.description,
    stage: feature.stage,
    documentation_url: feature.documentationUrl,
    payload: pyTruthy(feature.payload) ? feature.payload : {},
    created_at: feature.createdAt,
    created_by: creator ? serializeUserBasic(creator) : null,
  };
}

/**
 * What the public list (`GET /api/early_access_features/?token=`) answers for `asked` stages (none:
 * beta only), at most `limit` features. Only known stages reach the query: an unknown value (any
 * text a visitor's browser sends, NUL included) matches no feature, as PostHog's `stage__in` does.
 */
export async function publicFeatures(ctx: AppContext, team: Team, asked: readonly string[], limit: number) {
  const stages =
    asked.length > 0 ? asked.filter((stage): stage is Stage => (STAGES as readonly string[]).includes(stage)) : DEFAULT_PUBLIC_STAGES;
  const { db } = ctx.database;
  const features = await listFeaturesInStages(db, team.projectId, [...new Set(stages)], limit);
  const keys = await flagKeysByIds(db, team.projectId, [
    ...new Set(features.flatMap((f) => (f.featureFlagId === null ? [] : [f.featureFlagId]))),
  ]);
  return features.map((f) => publicFeature(f, f.featureFlagId === null ? null : (keys.get(f.featureFlagId) ?? null)));
}
