/**
 * The payload of a remote-configuration flag, which server SDKs fetch on demand (posthog-node's
 * getRemoteConfigPayload) instead of finding it in the local-evaluation feed: PostHog's
 * FeatureFlagViewSet.remote_config (products/feature_flags/backend/api/feature_flag.py).
 */
import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { isJsonObject } from '../lib/json-object.js';
import { pyTruthy } from '../posthog/python-values.js';
import { findFlagByKeyWithDeleted, getFlag, type FeatureFlag } from './store.js';

/**
 * The flag the URL names: digits are an id, anything else a key. PostHog reads soft-deleted flags
 * here too. Unlike PostHog, whose id lookup ignores the project, only the project's own flags are
 * found: a key for one project never reads another's flag.
 */
export async function remoteConfigFlag(db: Kysely<Schema>, projectId: number, idOrKey: string): Promise<FeatureFlag | undefined> {
  if (/^\d+$/.test(idOrKey)) return idOrKey.length > 15 ? undefined : getFlag(db, projectId, Number(idOrKey));
  return findFlagByKeyWithDeleted(db, projectId, idOrKey);
}

/**
 * `payloads.get("true") or None`: the stored payload (a JSON string, as the UI sends it) or null.
 * Hoglet stores no encrypted payloads (has_encrypted_payloads stays false), so there is nothing
 * to decrypt.
 */
export function remoteConfigPayload(flag: FeatureFlag): unknown {
  const payloads = flag.filters.payloads;
  const payload = isJsonObject(payloads) ? payloads.true : undefined;
  return pyTruthy(payload) ? payload : null;
}
