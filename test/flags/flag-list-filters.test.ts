import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createFlag, flagsPath, personFilter } from './flag-helpers.js';

let server: TestServer;

const everyone = { properties: [], rollout_percentage: 100 };
const variants = (...split: Array<[string, number]>) => ({
  variants: split.map(([key, rollout_percentage]) => ({ key, rollout_percentage })),
});
const FORTY_DAYS_AGO = new Date(Date.now() - 40 * 86_400_000).toISOString();

/** Creates a flag, then backdates it (PostHog's staleness needs a flag 30+ days old). */
async function flag(body: Record<string, unknown>, options: { old?: boolean } = {}) {
  const created = await createFlag(server, body);
  if (options.old) {
    await server.running.ctx.database.db
      .updateTable('feature_flags')
      .set({ created_at: FORTY_DAYS_AGO })
      .where('id', '=', created.id)
      .execute();
  }
  return created;
}

async function keys(query: string): Promise<string[]> {
  const res = await server.request(flagsPath(server, `?limit=100&${query}`));
  expect(res.status, res.text).toBe(200);
  return res.body.results.map((f: any) => f.key);
}

const sorted = (list: string[]) => [...list].sort();

beforeAll(async () => {
  server = await startTestServer();
  await flag({ key: 'stale-boolean', filters: { groups: [everyone] } }, { old: true });
  await flag({ key: 'stale-no-filters' }, { old: true });
  await flag({ key: 'stale-variant', filters: { groups: [everyone], multivariate: variants(['a', 100], ['b', 0]) } }, { old: true });
  await flag(
    { key: 'stale-override', filters: { groups: [{ ...everyone, variant: 'b' }], multivariate: variants(['a', 50], ['b', 50]) } },
    { old: true },
  );
  await flag({ key: 'old-split', filters: { groups: [everyone], multivariate: variants(['a', 50], ['b', 50]) } }, { old: true });
  await flag({ key: 'old-partial', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } }, { old: true });
  await flag(
    { key: 'old-targeted', filters: { groups: [{ properties: [personFilter('plan', 'pro')], rollout_percentage: 100 }] } },
    { old: true },
  );
  await flag({ key: 'old-disabled', active: false, filters: { groups: [everyone] } }, { old: true });
  await flag({ key: 'young-boolean', filters: { groups: [everyone] }, tags: ['beta'], evaluation_runtime: 'server' });
  await flag({ key: 'empty-variants', filters: { groups: [everyone], multivariate: { variants: [] } }, tags: ['ops'] });
  await flag({ key: 'new-checkout-flow', name: 'Checkout', tags: ['beta', 'ops'] });
});

afterAll(async () => {
  await server?.close();
});

describe('flag list filters (FeatureFlagViewSet._apply_filters)', () => {
  it('active=STALE: active flags 30+ days old that are fully rolled out (never called)', async () => {
    expect(sorted(await keys('active=STALE'))).toEqual(['stale-boolean', 'stale-no-filters', 'stale-override', 'stale-variant']);
  });

  it('any active value but "true" and "STALE" means inactive flags', async () => {
    for (const value of ['false', 'nonsense', 'TRUE', '']) expect(await keys(`active=${value}`), value).toEqual(['old-disabled']);
    expect(await keys('active=true')).not.toContain('old-disabled');
  });

  it('type=boolean includes a multivariate without variants; multivariant does not', async () => {
    const boolean = await keys('type=boolean');
    expect(boolean).toContain('empty-variants');
    expect(boolean).not.toContain('stale-variant');
    expect(sorted(await keys('type=multivariant'))).toEqual(['old-split', 'stale-override', 'stale-variant']);
  });

  it('tags and excluded_tags take JSON lists; unreadable values are ignored', async () => {
    expect(sorted(await keys(`tags=${encodeURIComponent('["beta"]')}`))).toEqual(['new-checkout-flow', 'young-boolean']);
    expect(sorted(await keys(`tags=${encodeURIComponent('["ops","nope"]')}`))).toEqual(['empty-variants', 'new-checkout-flow']);
    expect(await keys('tags=beta')).toHaveLength(11);
    expect(await keys(`excluded_tags=${encodeURIComponent('["beta"]')}`)).not.toContain('young-boolean');
  });

  it('order sorts by the named field, "-" for descending', async () => {
    const all = await keys('');
    expect(await keys('order=key')).toEqual(sorted(all));
    expect(await keys('order=-key')).toEqual(sorted(all).reverse());
  });

  it('search: a space also matches "-", "_" or nothing; more than 200 characters is refused', async () => {
    expect(await keys('search=checkout%20flow')).toEqual(['new-checkout-flow']);
    expect(await keys('search=CHECKOUT')).toEqual(['new-checkout-flow']);
    const long = await server.request(flagsPath(server, `?search=${'x'.repeat(201)}`));
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Search term cannot exceed 200 characters',
      attr: null,
    });
  });

  it('evaluation_runtime matches exactly', async () => {
    expect(await keys('evaluation_runtime=server')).toEqual(['young-boolean']);
    expect(await keys('evaluation_runtime=both')).toEqual([]);
  });
});
