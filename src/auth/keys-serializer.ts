import { formatDrfDateTime } from '../posthog/drf-datetime.js';
import type { PersonalApiKey } from './keys-store.js';

const drfTime = (value: string | null) => (value === null ? null : formatDrfDateTime(new Date(value)));

/**
 * PostHog's PersonalAPIKeySerializer: `value` is the raw key in the answers to create and roll
 * only, null everywhere else; a key without scopes shows as `["*"]` (keys-store reads it so).
 */
export function serializePersonalApiKey(key: PersonalApiKey, rawValue: string | null = null) {
  return {
    id: key.id,
    label: key.label,
    value: rawValue,
    mask_value: key.maskValue,
    created_at: drfTime(key.createdAt),
    last_used_at: drfTime(key.lastUsedAt),
    user_id: key.userId,
    scopes: key.scopes,
    scoped_teams: key.scopedTeams,
    scoped_organizations: key.scopedOrganizations,
    last_rolled_at: drfTime(key.lastRolledAt),
  };
}
