/**
 * Client text that once crashed or stalled the flag and cohort APIs: whitespace runs (quadratic
 * trimming, exponential search), names of Object.prototype's members as lookup keys, NUL in CSV
 * cells (PostgreSQL refuses it in text).
 */
import { describe, expect, it } from 'vitest';
import { matchesSearch } from '../../src/flags/list-filters.js';
import { pythonStrip } from '../../src/posthog/python-values.js';
import { useTestServer } from '../helpers/server.js';
import { cohortsPath, createFlag, flagsPath, storePerson } from './flag-helpers.js';

const server = useTestServer();

describe('pythonStrip', () => {
  it("strips Python's whitespace at both ends only", () => {
    expect(pythonStrip(' \u0085\t x y \u3000\u001f')).toBe('x y');
    expect(pythonStrip('\ufeffx\ufeff')).toBe('\ufeffx\ufeff');
    expect(pythonStrip('   ')).toBe('');
    const inner = `a${' '.repeat(200_000)}a`;
    expect(pythonStrip(inner)).toBe(inner);
    expect(pythonStrip(`  ${inner}  `)).toBe(inner);
  });
});

describe('matchesSearch', () => {
  it('lets a gap between words match runs of spaces, dashes and underscores, or nothing', () => {
    expect(matchesSearch('new-checkout-flow', ['checkout', 'flow'])).toBe(true);
    expect(matchesSearch('new_checkout__ -flow', ['checkout', 'flow'])).toBe(true);
    expect(matchesSearch('checkoutflow', ['checkout', 'flow'])).toBe(true);
    expect(matchesSearch('Checkout.Flow', ['checkout', 'flow'])).toBe(false);
    expect(matchesSearch('flow checkout', ['checkout', 'flow'])).toBe(false);
    expect(matchesSearch('ab-ab-c', ['ab', 'c'])).toBe(true); // not the first occurrence of "ab"
  });

  it('answers at once for words that are gap characters themselves', () => {
    const words = ['a', ...Array<string>(90).fill('-'), 'b'];
    expect(matchesSearch(`a${'-'.repeat(200)}c`, words)).toBe(false);
    expect(matchesSearch(`a${'-'.repeat(200)}b`, words)).toBe(true);
  });
});

describe('the API with hostile text', () => {
  it('lists flags searched with long whitespace runs and ordered by prototype member names', async () => {
    await createFlag(server, { key: `a${'-'.repeat(30)}c` });
    await createFlag(server, { key: 'second-flag' });
    const search = encodeURIComponent(`a${' -'.repeat(60)} b`);
    const searched = await server.request(flagsPath(server, `?search=${search}`));
    expect(searched.status).toBe(200);
    expect(searched.body.results).toEqual([]);
    for (const order of ['__proto__', 'hasOwnProperty', '-valueOf', 'constructor']) {
      const res = await server.request(flagsPath(server, `?order=${encodeURIComponent(order)}`));
      expect(res.status, order).toBe(200);
      expect(res.body.results.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('keeps a name with a long inner whitespace run', async () => {
    const name = `a${' '.repeat(100_000)}a`;
    const res = await server.request(flagsPath(server), { method: 'POST', body: { key: 'spacious', name: `  ${name}  ` } });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe(name);
  });

  it('answers cohort filters whose type names an Object.prototype member without a 500', async () => {
    for (const type of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const res = await server.request(cohortsPath(server), {
        method: 'POST',
        body: { name: `proto ${type}`, filters: { properties: { type: 'AND', values: [{ type, key: 'a', value: 1 }] } } },
      });
      expect(res.status, `${type}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
    }
  });

  it('refuses a create or an edit whose JSON body is not an object, as DRF does', async () => {
    const flag = await createFlag(server, { key: 'not-an-object' });
    const invalid = (type: string) => ({
      type: 'validation_error',
      code: 'invalid_input',
      detail: `Invalid data. Expected a dictionary, but got ${type}.`,
      attr: null,
    });
    const cases: Array<[string, unknown]> = [
      ['"text"', invalid('str')],
      ['[{"key": "x"}]', invalid('list')],
      ['5', invalid('int')],
      ['true', invalid('bool')],
      ['null', { type: 'validation_error', code: 'null', detail: 'No data provided', attr: null }],
    ];
    for (const [method, path] of [
      ['POST', flagsPath(server)],
      ['PATCH', flagsPath(server, `${flag.id}/`)],
    ] as const) {
      for (const [rawBody, expected] of cases) {
        const res = await server.request(path, { method, rawBody, headers: { 'content-type': 'application/json' } });
        expect(res.status, `${method} ${rawBody}`).toBe(400);
        expect(res.body).toEqual(expected);
      }
    }
  });

  it('answers a project token holding a NUL as an unknown one wherever a token is looked up, on both backends', async () => {
    const token = `${server.token}\u0000`;
    for (const path of ['/decide/?v=2', '/decide/?v=4', '/flags/?v=1', '/flags/?v=2']) {
      const res = await server.request(path, { method: 'POST', key: null, body: { token, distinct_id: 'someone' } });
      expect(res.status, path).toBe(401);
      expect(res.body).toEqual({
        type: 'authentication_error',
        code: 'invalid_api_key',
        detail: 'Project API key invalid. You can find your project API key in your project settings.',
        attr: null,
      });
    }
    const query = encodeURIComponent(token);
    const feeds = [
      [`/flags/definitions?token=${query}`, 'authentication_failed'],
      [`/api/feature_flag/local_evaluation/?token=${query}`, 'invalid_api_key'],
      [flagsPath(server, `local_evaluation/?token=${query}`), 'authentication_failed'],
      [flagsPath(server, `local_evaluation/?api_key=${query}`), 'authentication_failed'],
    ];
    for (const [path, code] of feeds) {
      const res = await server.request(path!);
      expect(res.status, path).toBe(401);
      expect(res.body.code, path).toBe(code);
    }
  });

  it('answers a flag key holding a NUL as one no flag has, on both backends', async () => {
    const res = await server.request(flagsPath(server), { method: 'POST', body: { key: 'nul\u0000key' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'invalid_key',
      detail: 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
      attr: 'key',
    });
    // posthog-node's remote config: an unknown flag is PostHog's bare 404.
    const remote = await server.request(flagsPath(server, 'nul%00key/remote_config/'));
    expect(remote.status).toBe(404);
    expect(remote.text).toBe('');
  });

  it('reads CSV cells with a NUL as the stored text reads it (U+FFFD), on both backends', async () => {
    await storePerson(server, ['nul\ufffdid']);
    for (const csv of ['distinct_id,name\nnul\u0000id,x\n', 'email\nx\u0000y@z.io\n']) {
      const form = new FormData();
      form.set('name', 'NUL cells');
      form.set('is_static', 'true');
      form.set('csv', new Blob([csv], { type: 'text/csv' }), 'people.csv');
      const response = await fetch(`${server.url}${cohortsPath(server)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}` },
        body: form,
      });
      expect(response.status, await response.clone().text()).toBe(201);
      const body = (await response.json()) as { count: number };
      expect(body.count).toBe(csv.startsWith('distinct_id') ? 1 : 0);
    }
  });
});
