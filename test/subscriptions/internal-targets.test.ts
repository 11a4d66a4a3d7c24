import { lookup } from 'node:dns/promises';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createInsight, env, setSlackWebhook } from './helpers.js';
import { startReceiver } from './receivers.js';

/**
 * Webhook and Slack deliveries refuse internal targets (PostHog's SSRF rules) unless the operator
 * lists them in WEBHOOK_ALLOWED_HOSTS: on saving, by the host as written; on delivering, also by
 * the addresses its name resolves to.
 */
let guarded: TestServer;
let open: TestServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** A name of this machine that is on no list of internal names but resolves to a loopback address. */
const machineName = os.hostname();

beforeAll(async () => {
  receiver = await startReceiver();
  guarded = await startTestServer({ INGESTION_WORKER: 'off' });
  open = await startTestServer({ INGESTION_WORKER: 'off', WEBHOOK_ALLOWED_HOSTS: `127.0.0.0/8, ${machineName}` });
});
afterAll(async () => {
  await guarded?.close();
  await open?.close();
  await receiver?.close();
});

const base = (server: TestServer) => `${env(server)}/subscriptions`;

async function subscribe(server: TestServer, body: Record<string, unknown>) {
  const insight = await createInsight(server);
  return server.request(`${base(server)}/`, {
    method: 'POST',
    body: { insight: insight.id, frequency: 'daily', start_date: '2030-01-01T08:00:00Z', ...body },
  });
}

async function testDelivery(server: TestServer, id: number) {
  const res = await server.request(`${base(server)}/${id}/test_delivery/`, { method: 'POST' });
  expect(res.status, res.text).toBe(202);
  return res.body;
}

describe('saving a webhook subscription', () => {
  it.each([
    ['http://127.0.0.1:9/hook', 'Local/Loopback host not allowed'],
    ['http://localhost./hook', 'Local/Loopback host not allowed'],
    ['http://[::1]:9/hook', 'Local/Loopback host not allowed'],
    ['http://2130706433/hook', 'Local/Loopback host not allowed'],
    ['http://0x7f.1/hook', 'Local/Loopback host not allowed'],
    ['http://169.254.169.254/latest/meta-data/', 'Local/metadata host'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'Local/metadata host'],
    ['https://vault.service.consul/hook', 'Internal domain pattern blocked: .consul'],
    ['http://10.0.0.5:8080/hook', 'Private IP address not allowed'],
    ['http://[::ffff:192.168.1.1]/hook', 'Private IP address not allowed'],
  ])('refuses %s', async (url, reason) => {
    const res = await subscribe(guarded, { target_type: 'webhook', target_value: url });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: `Invalid webhook URL: ${reason}`,
      attr: 'target_value',
    });
  });

  it('accepts a public host, and an internal one the operator allowed', async () => {
    const pub = await subscribe(guarded, { target_type: 'webhook', target_value: 'https://hooks.example.com/x' });
    expect(pub.status, pub.text).toBe(201);
    const local = await subscribe(open, { target_type: 'webhook', target_value: 'http://127.0.0.1:9/hook' });
    expect(local.status, local.text).toBe(201);
    const refused = await subscribe(open, { target_type: 'webhook', target_value: 'http://10.0.0.5/hook' });
    expect(refused.body.detail).toBe('Invalid webhook URL: Private IP address not allowed');
  });

  it('a PATCH leaves a stored target alone unless it changes it', async () => {
    const created = await subscribe(guarded, { target_type: 'webhook', target_value: 'https://hooks.example.com/y' });
    await guarded.running.ctx.database.db
      .updateTable('subscriptions')
      .set({ target_value: 'http://127.0.0.1:9/old' })
      .where('id', '=', created.body.id)
      .execute();
    const renamed = await guarded.request(`${base(guarded)}/${created.body.id}/`, { method: 'PATCH', body: { title: 'Renamed' } });
    expect(renamed.status, renamed.text).toBe(200);
    const moved = await guarded.request(`${base(guarded)}/${created.body.id}/`, {
      method: 'PATCH',
      body: { target_value: 'http://192.168.0.9/new' },
    });
    expect(moved.body).toMatchObject({
      code: 'invalid_input',
      attr: 'target_value',
      detail: 'Invalid webhook URL: Private IP address not allowed',
    });
  });
});

describe('delivering', () => {
  it('does not send to a stored internal target, and does not retry', async () => {
    const path = '/stored-before';
    const created = await subscribe(guarded, { target_type: 'webhook', target_value: 'https://hooks.example.com/z' });
    expect(created.status, created.text).toBe(201);
    await guarded.running.ctx.database.db
      .updateTable('subscriptions')
      .set({ target_value: `${receiver.url}${path}` })
      .where('id', '=', created.body.id)
      .execute();
    const delivery = await testDelivery(guarded, created.body.id);
    expect(delivery).toMatchObject({
      status: 'failed',
      next_attempt_at: null,
      error: `${receiver.url}${path} is not allowed: Local/Loopback host not allowed`,
    });
    expect(receiver.posts.filter((p) => p.path === path)).toEqual([]);
  });

  it('checks the addresses a name resolves to', async () => {
    const { address } = await lookup(machineName);
    // The premise: this machine's name resolves to loopback (/etc/hosts), as on Debian.
    expect(address, `${machineName} resolves to ${address}`).toMatch(/^(127\.|::1$)/);
    const path = '/by-name';
    const url = `${receiver.url.replace('127.0.0.1', machineName)}${path}`;
    const created = await subscribe(guarded, { target_type: 'webhook', target_value: url });
    expect(created.status, created.text).toBe(201); // the name is not an internal one
    const delivery = await testDelivery(guarded, created.body.id);
    expect(delivery.status).toBe('failed');
    expect(delivery.error).toBe(`${url} is not allowed: Disallowed target IP: ${address}`);
    expect(receiver.posts.filter((p) => p.path === path)).toEqual([]);

    // Allowed by name on the other server, it is delivered.
    const allowed = await subscribe(open, { target_type: 'webhook', target_value: url });
    expect(allowed.status, allowed.text).toBe(201);
    expect(await testDelivery(open, allowed.body.id)).toMatchObject({ status: 'delivered', error: null });
    expect(receiver.posts.filter((p) => p.path === path)).toHaveLength(1);
  });

  it('delivers to an allowed network', async () => {
    const path = '/allowed-network';
    const created = await subscribe(open, { target_type: 'webhook', target_value: `${receiver.url}${path}` });
    expect(created.status, created.text).toBe(201);
    expect(await testDelivery(open, created.body.id)).toMatchObject({ status: 'delivered' });
    expect(receiver.posts.filter((p) => p.path === path)).toHaveLength(1);
  });

  it('refuses a Slack incoming webhook on an internal address the same way', async () => {
    const path = '/slack-internal';
    await setSlackWebhook(guarded, `${receiver.url}${path}`);
    try {
      const created = await subscribe(guarded, { target_type: 'slack', target_value: 'C123|#general' });
      expect(created.status, created.text).toBe(201);
      const delivery = await testDelivery(guarded, created.body.id);
      expect(delivery).toMatchObject({ status: 'failed', error: `${receiver.url}${path} is not allowed: Local/Loopback host not allowed` });
      expect(receiver.posts.filter((p) => p.path === path)).toEqual([]);
    } finally {
      await setSlackWebhook(guarded, null);
    }
  });
});

describe('WEBHOOK_ALLOWED_HOSTS', () => {
  it('a value it cannot read stops the server from starting, naming the entry', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOWED_HOSTS: '10.0.0.0/8, 10.0.0.0/99' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_ALLOWED_HOSTS: '10.0.0.0/8, 10.0.0.0/99' })).toThrow('cannot read "10.0.0.0/99"');
  });
});
