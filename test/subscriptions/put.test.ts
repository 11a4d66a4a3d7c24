import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createProject } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { LOOPBACK_TARGETS_ENV } from './receivers.js';
import { createInsight, env } from './helpers.js';

/** PUT on a subscription: DRF's full update (ModelViewSet.update), not PATCH's partial one. */
let server: TestServer;
let insight: any;

beforeAll(async () => {
  server = await startTestServer({ ...LOOPBACK_TARGETS_ENV, INGESTION_WORKER: 'off' });
  insight = await createInsight(server);
});
afterAll(async () => {
  await server?.close();
});

const base = (teamId?: number) => `${env(server, teamId)}/subscriptions`;
const FULL = { target_type: 'email', target_value: 'after@example.com', frequency: 'weekly', start_date: '2031-03-04T09:30:00Z' };

async function existing() {
  const res = await server.request(`${base()}/`, {
    method: 'POST',
    body: {
      insight: insight.id,
      target_type: 'webhook',
      target_value: 'http://127.0.0.1:9/hook',
      frequency: 'daily',
      interval: 2,
      start_date: '2030-01-01T10:00:00Z',
      title: 'Before',
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('PUT /subscriptions/:id/', () => {
  it('replaces the fields given and keeps the optional ones left out', async () => {
    const s = await existing();
    const res = await server.request(`${base()}/${s.id}/`, { method: 'PUT', body: { ...FULL, title: 'After', byweekday: ['tuesday'] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      ...s,
      target_type: 'email',
      target_value: 'after@example.com',
      frequency: 'weekly',
      start_date: '2031-03-04T09:30:00Z',
      title: 'After',
      byweekday: ['tuesday'],
      summary: 'sent every 2 weeks',
      next_delivery_date: '2031-03-04T09:30:00Z',
    });
    // As DRF's update: fields absent from the body (interval, insight) keep their values.
    expect(res.body).toMatchObject({ interval: 2, insight: insight.id });
    expect((await server.request(`${base()}/${s.id}/`)).body).toEqual(res.body);
    // The same route under /api/projects/.
    const viaProject = await server.request(`/api/projects/${server.bootstrap.team.id}/subscriptions/${s.id}/`, {
      method: 'PUT',
      body: { ...FULL, title: 'Again' },
    });
    expect(viaProject.status).toBe(200);
    expect(viaProject.body.title).toBe('Again');
  });

  it('answers DRF’s required error for each required field left out, changing nothing', async () => {
    const s = await existing();
    for (const field of Object.keys(FULL)) {
      const body: Record<string, unknown> = { ...FULL, title: 'Changed' };
      delete body[field];
      const res = await server.request(`${base()}/${s.id}/`, { method: 'PUT', body });
      expect(res.status, field).toBe(400);
      expect(res.body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: field });
    }
    // The first in the serializer's field order when several are missing.
    const empty = await server.request(`${base()}/${s.id}/`, { method: 'PUT', body: { title: 'Changed' } });
    expect(empty.body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'target_type' });
    expect((await server.request(`${base()}/${s.id}/`)).body).toEqual(s);
    // PATCH, partial, still takes a single field.
    const patched = await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { title: 'Patched' } });
    expect(patched.status).toBe(200);
    expect(patched.body.title).toBe('Patched');
  });

  it('validates the whole object, as a create does', async () => {
    const s = await existing();
    const bad = await server.request(`${base()}/${s.id}/`, { method: 'PUT', body: { ...FULL, target_value: 'not an address' } });
    expect(bad.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Enter a valid email address.',
      attr: 'target_value',
    });
    const neither = await server.request(`${base()}/${s.id}/`, { method: 'PUT', body: { ...FULL, insight: null } });
    expect(neither.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Either dashboard or insight is required for an export.',
      attr: null,
    });
  });

  it('takes subscription:write and reaches only the environment’s own subscriptions', async () => {
    const s = await existing();
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['subscription:read']);
    const denied = await server.request(`${base()}/${s.id}/`, { method: 'PUT', key: reader, body: FULL });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe("API key missing required scope 'subscription:write'");
    const other = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Other');
    const missing = await server.request(`${base(other.team.id)}/${s.id}/`, { method: 'PUT', body: FULL });
    expect(missing.status).toBe(404);
    expect((await server.request(`${base()}/${s.id}/`)).body).toEqual(s);
  });
});
