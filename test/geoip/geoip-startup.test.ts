/**
 * GeoIP loads while the server already serves: requests do not wait for it, events do (an event
 * processed before it loaded would be stored without its $geoip_* properties for good). GEOIP=off
 * loads none. Real servers in child processes; the database arrives through a named pipe, so the
 * test decides when loading ends.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { freshStorage } from '../helpers/backend.js';
import { runHoglet, type HogletProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';
import { uint, writeMmdb } from './mmdb-writer.js';

const KEY = 'phx_geoipstart0123456789abcdefghijklmnopqrstu';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function serve(env: Record<string, string>): Promise<{ p: HogletProcess; url: string; token: string }> {
  const storage = await freshStorage();
  cleanups.push(() => storage.dispose());
  const p = runHoglet(['serve'], {
    ...storage.env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
    ...env,
  });
  cleanups.push(async () => {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await p.exited;
  });
  const [, url] = await p.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/, 60_000);
  const [, token] = await p.waitFor(/Project API key \(for SDKs\): +(phc_\w+)/);
  return { p, url: url!, token: token! };
}

async function capture(url: string, token: string, distinctId: string, ip: string): Promise<void> {
  const response = await fetch(`${url}/capture/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, event: 'located', distinct_id: distinctId, properties: { $ip: ip } }),
  });
  expect(response.status).toBe(200);
}

async function storedEvents(url: string, distinctId: string): Promise<Array<{ properties: Record<string, unknown> }>> {
  const headers = { authorization: `Bearer ${KEY}` };
  const projects = (await (await fetch(`${url}/api/projects/`, { headers })).json()) as { results: Array<{ id: number }> };
  const response = await fetch(`${url}/api/environments/${projects.results[0]!.id}/events/?distinct_id=${distinctId}`, { headers });
  return ((await response.json()) as { results: Array<{ properties: Record<string, unknown> }> }).results;
}

function eventuallyStored(url: string, distinctId: string) {
  return waitFor(() => storedEvents(url, distinctId), { what: `${distinctId}'s event to be stored`, until: (events) => events.length > 0 });
}

/** A GeoIP2 City file that knows one network, gzipped as users may give it. */
function lyonDatabase(): Buffer {
  const names = (en: string) => ({ en });
  return gzipSync(
    writeMmdb(
      [
        {
          network: '203.0.113.0/24',
          data: {
            city: { geoname_id: uint(2996944, 4), names: names('Lyon') },
            continent: { code: 'EU', names: names('Europe') },
            country: { iso_code: 'FR', names: names('France') },
            location: { latitude: 45.75, longitude: 4.85, time_zone: 'Europe/Paris' },
          },
        },
      ],
      { databaseType: 'GeoIP2-City', ipVersion: 6, languages: ['en'] },
    ),
  );
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-geoip-start-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('GeoIP at start', () => {
  it('serves before GeoIP has loaded; the worker holds events until it has, then locates them', async () => {
    const fifo = path.join(tempDir(), 'city.mmdb.gz');
    execFileSync('mkfifo', [fifo]);
    // The server opens the pipe and waits on it: GeoIP is loading until the test writes the file.
    const { p, url, token } = await serve({ GEOIP_DATABASE: fifo });
    expect((await fetch(`${url}/_health`)).status).toBe(200);
    expect(p.output()).not.toContain('geoip ready');

    await capture(url, token, 'early-visitor', '203.0.113.9');
    await p.waitFor(/ingestion worker waiting for the GeoIP database to load/);
    expect(await storedEvents(url, 'early-visitor')).toEqual([]);

    fs.writeFileSync(fifo, lyonDatabase());
    await p.waitFor(/geoip ready/);
    const [event] = await eventuallyStored(url, 'early-visitor');
    expect(event!.properties).toMatchObject({
      $ip: '203.0.113.9',
      $geoip_city_name: 'Lyon',
      $geoip_country_code: 'FR',
      $geoip_time_zone: 'Europe/Paris',
    });

    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  }, 120_000);

  it('loads none with GEOIP=off: events are stored without $geoip_* properties', async () => {
    const { p, url, token } = await serve({ GEOIP: 'off' });
    await p.waitFor(/geoip off \(GEOIP=off\)/);
    // An address the bundled database locates (it would be stored with $geoip_country_code US).
    await capture(url, token, 'unlocated', '8.8.8.8');
    const [event] = await eventuallyStored(url, 'unlocated');
    expect(event!.properties.$ip).toBe('8.8.8.8');
    expect(Object.keys(event!.properties).filter((key) => key.startsWith('$geoip'))).toEqual([]);
    expect(p.output()).not.toContain('geoip ready');
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  }, 120_000);

  it('stops, saying why, when a GeoIP file given turns out not to be a database', async () => {
    const fifo = path.join(tempDir(), 'city.mmdb');
    execFileSync('mkfifo', [fifo]);
    const { p } = await serve({ GEOIP_DATABASE: fifo });
    fs.writeFileSync(fifo, 'not a MaxMind database'.repeat(100));
    expect((await p.exited).code).toBe(1);
    expect(p.output()).toContain(`hoglet: GeoIP database ${fifo} could not be opened`);
    expect(p.output()).toContain('shutdown complete');
  }, 120_000);

  it('reads GEOIP as on or off', () => {
    expect(loadConfig({}).geoip).toBe(true);
    expect(loadConfig({ GEOIP: 'on' }).geoip).toBe(true);
    expect(loadConfig({ GEOIP: ' off ' }).geoip).toBe(false);
    expect(() => loadConfig({ GEOIP: 'no' })).toThrow(ConfigError);
    expect(() => loadConfig({ GEOIP: 'no' })).toThrow('GEOIP must be "on" or "off", got "no"');
  });
});
