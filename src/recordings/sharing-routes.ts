import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { permissionDenied, validationError } from '../posthog/errors.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { loadRecording } from './route-helpers.js';
import { getSharing, saveSharing, type RecordingSharing } from './sharing-store.js';
import { recordActivity } from '../activity/store.js';
import { readBoolean } from '../posthog/fields.js';

/** PostHog's SharingConfigurationSerializer body. */
function sharingBody(sharing: RecordingSharing) {
  return {
    created_at: sharing.createdAt,
    enabled: sharing.enabled,
    access_token: sharing.accessToken,
    settings: sharing.settings,
    password_required: false,
    share_passwords: [] as unknown[],
  };
}

/**
 * `…/session_recordings/:recording_id/sharing/`: read and change whether the recording is public
 * at `/shared/<access_token>`. The page reads the configuration on every request, so disabling
 * takes effect at once.
 */
export const sharingRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  for (const base of TEAM_ROUTE_BASES) {
    const path = `${base.base}/session_recordings/:recording_id/sharing/`;

    app.get(path, { config: teamAccess('sharing_configuration:read', base) }, async (request) => {
      const row = await loadRecording(ctx, request, 'recording_id');
      // Read or created, disabled, as PostHog's get_or_create: the token a first read shows is
      // the one enabling keeps, so a link copied before sharing was on works once it is.
      return sharingBody(await saveSharing(db, row.teamId, row.sessionId, {}));
    });

    app.patch(path, { config: teamAccess('sharing_configuration:write', base) }, async (request) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (typeof body !== 'object' || Array.isArray(body))
        throw validationError('Invalid data. Expected a dictionary.', 'non_field_errors', 'invalid');
      const row = await loadRecording(ctx, request, 'recording_id');
      const change: { enabled?: boolean; settings?: Record<string, unknown> | null } = {};
      if (body.enabled !== undefined) change.enabled = readBoolean(body.enabled, 'enabled');
      if (body.settings !== undefined) {
        if (body.settings !== null && (typeof body.settings !== 'object' || Array.isArray(body.settings))) {
          throw validationError('Invalid settings format', 'settings');
        }
        change.settings = body.settings as Record<string, unknown> | null;
      }
      // Password-protected sharing is a paid PostHog feature that Hoglet does not offer.
      if (body.password_required !== undefined && readBoolean(body.password_required, 'password_required')) {
        throw permissionDenied('Password-protected sharing is not available.');
      }
      const before = await getSharing(db, row.teamId, row.sessionId);
      const saved = await saveSharing(db, row.teamId, row.sessionId, change);
      if (change.enabled !== undefined && change.enabled !== (before?.enabled ?? false)) {
        // PostHog logs sharing changes on the shared item.
        await recordActivity(db, {
          organizationId: request.team!.organizationId,
          teamId: row.teamId,
          scope: 'Replay',
          itemId: row.sessionId,
          activity: change.enabled ? 'sharing enabled' : 'sharing disabled',
          actor: { userId: request.principal!.user.id, apiKeyId: request.principal!.key?.id ?? null },
          name: row.sessionId,
          changes: [
            { type: 'Replay', action: 'changed', field: 'sharing_enabled', before: before?.enabled ?? false, after: change.enabled },
          ],
        });
      }
      return sharingBody(saved);
    });
  }
};
