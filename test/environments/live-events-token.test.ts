/**
 * An environment's `live_events_token`: the livestream JWT PostHog's TeamSerializer mints per caller
 * (posthog/api/team.py `get_or_mint_live_events_token`, posthog/jwt.py `encode_jwt`).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

async function createEnv(body: Record<string, unknown> = {}) {
  const res = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, {
    method: 'POST',
    body: { name: 'Parity', ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

async function signingKey(): Promise<string> {
  const row = await server.running.ctx.database.db
    .selectFrom('instance_secrets')
    .select('value')
    .where('name', '=', 'jwt_signing_key')
    .executeTakeFirstOrThrow();
  return row.value;
}

describe('live_events_token', () => {
  it("is PostHog's livestream JWT: HS256, audience posthog:livestream, a week long, for this environment and caller", async () => {
    const before = Math.floor(Date.now() / 1000);
    const env = await createEnv();
    const key = await signingKey();
    const reads = [
      env.live_events_token,
      (await server.request(`/api/environments/${env.id}/`)).body.live_events_token,
      (await server.request(`/api/projects/${server.bootstrap.project.id}/`)).body.live_events_token,
    ];
    for (const [i, token] of reads.entries()) {
      expect(token, `read ${i}`).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const [header, payload, signature] = token.split('.');
      expect(decodePart(header)).toEqual({ alg: 'HS256', typ: 'JWT' });
      expect(createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url'), `read ${i}`).toBe(signature);
      const claims = decodePart(payload);
      const teamId = i === 2 ? server.bootstrap.team.id : env.id;
      expect(claims).toMatchObject({
        team_id: teamId,
        user_id: server.bootstrap.user.id,
        organization_id: server.bootstrap.organization.id,
        aud: 'posthog:livestream',
      });
      expect(claims.api_token).toBe(i === 2 ? server.bootstrap.team.apiToken : env.api_token);
      // Issued during this test (seconds): a week from then.
      const week = 7 * 24 * 3600;
      expect(claims.exp).toBeGreaterThanOrEqual(before + week);
      expect(claims.exp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + week);
    }
    // The claims follow the environment's project API key.
    const reset = await server.request(`/api/environments/${env.id}/reset_token/`, { method: 'PATCH', body: {} });
    expect(decodePart(reset.body.live_events_token.split('.')[1]).api_token).toBe(reset.body.api_token);
  });
});
