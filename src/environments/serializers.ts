import type { Organization, Team, User } from './models.js';
import { MembershipLevel } from './models.js';
import { TEAM_CONFIG_FIELDS } from './team-fields.js';

/** PostHog's default HogQL modifiers for a team, shown read-only as `default_modifiers`. */
const DEFAULT_MODIFIERS = {
  personsOnEventsMode: 'person_id_override_properties_on_events',
  personsArgMaxVersion: 'auto',
  inCohortVia: 'auto',
  materializationMode: 'legacy_null_as_null',
  optimizeJoinedFilters: false,
  bounceRatePageViewMode: 'count_pageviews',
  bounceRateDurationSeconds: 10,
  sessionTableVersion: 'auto',
  sessionsV2JoinMode: 'string',
  propertyGroupsMode: 'optimized',
  useMaterializedViews: true,
  customChannelTypeRules: [],
};

/** Facts about an environment that live in other features' tables. */
export interface TeamExtras {
  membershipLevel?: number | null;
  groupTypes?: Array<Record<string, unknown>>;
  productIntents?: Array<Record<string, unknown>>;
  /** The caller's livestream JWT (live-events-token.ts). */
  liveEventsToken?: string | null;
}

/**
 * PostHog's global default data color theme (the first DataColorTheme, made by its migration
 * 0537_data_color_themes; the app falls back to theme 1). TeamSerializer.to_representation answers
 * it for an organization without custom themes; Hoglet has none, so an unset theme reads as it.
 */
export const DEFAULT_DATA_THEME_ID = 1;

/** TeamBasicSerializer: the subset list endpoints answer with. */
export function serializeTeamBasic(team: Team, idOverride?: number) {
  return {
    id: idOverride ?? team.id,
    uuid: team.uuid,
    organization: team.organizationId,
    project_id: team.projectId,
    api_token: team.apiToken,
    name: team.name,
    completed_snippet_onboarding: team.settings.completed_snippet_onboarding ?? false,
    has_completed_onboarding_for: team.settings.has_completed_onboarding_for ?? null,
    ingested_event: team.ingestedEvent,
    is_demo: team.settings.is_demo ?? false,
    timezone: team.settings.timezone ?? 'UTC',
    access_control: team.settings.access_control ?? false,
  };
}

/** TeamSerializer: the whole environment, as create, retrieve and update answer. */
export function serializeTeam(team: Team, extras: TeamExtras = {}) {
  const level = extras.membershipLevel ?? null;
  const groupTypes = extras.groupTypes ?? [];
  const body: Record<string, unknown> = {
    id: team.id,
    uuid: team.uuid,
    name: team.name,
    organization: team.organizationId,
    project_id: team.projectId,
    api_token: team.apiToken,
    secret_api_token: team.secretApiToken,
    secret_api_token_backup: team.secretApiTokenBackup,
    created_at: team.createdAt,
    updated_at: team.updatedAt,
    ingested_event: team.ingestedEvent,
    default_modifiers: DEFAULT_MODIFIERS,
    person_on_events_querying_enabled: true,
    user_access_level: level === null ? 'none' : level >= MembershipLevel.admin ? 'admin' : 'member',
  };
  for (const field of TEAM_CONFIG_FIELDS) body[field.name] = team.settings[field.name] ?? null;
  body.default_data_theme ??= DEFAULT_DATA_THEME_ID;
  Object.assign(body, {
    effective_membership_level: level,
    has_group_types: groupTypes.length > 0,
    group_types: groupTypes,
    live_events_token: extras.liveEventsToken ?? null,
    product_intents: extras.productIntents ?? [],
    managed_viewsets: {},
    access_control_version: 'v2',
  });
  return body;
}

/** UserBasicSerializer: the summary embedded in other objects (`created_by`, activity). */
export function serializeUserBasic(user: User) {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    is_email_verified: user.isEmailVerified,
    hedgehog_config: null,
    role_at_organization: user.roleAtOrganization,
  };
}

export function serializeOrganizationBasic(org: Organization, level: number) {
  return {
    id: org.id,
    name: org.name,
    slug: org.slug,
    logo_media_id: null,
    membership_level: level,
    members_can_use_personal_api_keys: true,
    is_active: true,
    is_not_active_reason: null,
  };
}
