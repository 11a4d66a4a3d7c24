/**
 * Seeded fuzzed requests for the whole HTTP surface (issue 25): malformed bodies of every kind
 * (truncated and invalid JSON, wrong JSON types, huge numbers, NUL and lone surrogates, invalid
 * UTF-8, wrong content types, gzip/lz64/base64 garbage and bombs, deep nesting, very long strings)
 * for every public endpoint, and fuzzed path ids, query strings and bodies for /api routes (the
 * values from fuzz-values.ts, put on the wire by fuzz-encodings.ts). Used by
 * the suite's fuzz test (test/app/fuzz.test.ts) and by bench/fuzz-memory.ts, which sends
 * tens of thousands of them and watches the server's memory.
 */
import { encodeBody, fuzzQuery, oddQueryValue, oddSegment, percentEncode } from './fuzz-encodings.js';
import { fuzzValue, mutate, oddString, toJson, type Random } from './fuzz-values.js';

export interface FuzzRequest {
  method: string;
  path: string;
  body?: Buffer | string;
  headers?: Record<string, string>;
  /** Sent without credentials (the public endpoints take none). */
  anonymous?: boolean;
}

export interface Known {
  projectId: number;
  token: string;
  ids: Record<string, string>;
}

function captureEvent(random: Random, known: Known): Record<string, unknown> {
  return {
    event: random.pick(['$pageview', '$identify', '$groupidentify', '$snapshot', 'fuzz event', '$create_alias', '$set']),
    distinct_id: random.chance(0.8) ? 'fuzz-person' : oddString(random),
    properties: {
      $current_url: 'https://example.com/',
      $set: { plan: 'pro' },
      $groups: { company: 'acme' },
      $session_id: 's1',
      token: known.token,
    },
    timestamp: '2024-05-01T10:00:00Z',
    uuid: '0190f1a4-0000-7000-8000-000000000001',
  };
}

/** The project token, often; else one with a NUL (PostgreSQL cannot compare it), or any odd value. */
function fuzzToken(random: Random, known: Known): string {
  if (random.chance(0.65)) return known.token;
  if (random.chance(0.4))
    return random.pick([`${known.token}\u0000`, '\u0000', `phc_\u0000${known.token.slice(4)}`, `${known.token}\ud800`]);
  return oddString(random);
}

export function publicRequest(random: Random, known: Known): FuzzRequest {
  const token = fuzzToken(random, known);
  const kind = random.int(12);
  if (kind <= 5) {
    // capture, batch and friends, decide and flags, recordings: a body to decode.
    const path = random.pick(['/capture/', '/batch/', '/e/', '/i/v0/e/', '/track/', '/engage/', '/decide/', '/flags/', '/s/']);
    let template: Record<string, unknown>;
    if (path === '/batch/')
      template = { api_key: token, batch: [captureEvent(random, known), captureEvent(random, known)], sent_at: '2024-05-01T10:00:01Z' };
    else if (path === '/engage/') template = { $token: token, $distinct_id: 'fuzz-person', $set: { plan: 'pro' } };
    else if (path === '/decide/' || path === '/flags/') {
      template = {
        token,
        distinct_id: 'fuzz-person',
        groups: { company: 'acme' },
        person_properties: { plan: 'pro' },
        group_properties: { company: { size: 5 } },
        $anon_distinct_id: 'anon',
      };
    } else if (path === '/s/') {
      template = {
        api_key: token,
        event: '$snapshot',
        properties: { $session_id: 's1', $window_id: 'w1', $snapshot_data: [{ type: 4, timestamp: 1714557600000, data: {} }], token },
      };
    } else template = { api_key: token, ...captureEvent(random, known) };
    const text = random.chance(0.1) ? toJson(fuzzValue(random)) : toJson(mutate(random, template));
    const encoded = encodeBody(random, text, false);
    const version =
      path === '/decide/'
        ? `v=${random.pick(['1', '2', '3', '4', '0', 'x'])}`
        : path === '/flags/'
          ? `v=${random.pick(['1', '2', '3'])}`
          : '';
    const query = [
      version,
      encoded.query,
      random.chance(0.2)
        ? `${random.pick(['config', 'beacon', 'ip', '_', 'ver', 'compression', 'only_evaluate_survey_feature_flags'])}=${oddQueryValue(random)}`
        : '',
    ]
      .filter(Boolean)
      .join('&');
    const method = encoded.body === '' ? 'GET' : 'POST';
    return {
      method,
      path: `${path}${query ? `?${query}` : ''}`,
      ...(method === 'POST' ? { body: encoded.body } : {}),
      headers: encoded.headers,
      anonymous: true,
    };
  }
  switch (kind) {
    case 6: {
      const segment = random.chance(0.5) ? percentEncode(token.slice(0, 1000)) : oddSegment(random);
      return { method: 'GET', path: `/array/${segment}/${random.pick(['config', 'config.js'])}`, anonymous: true };
    }
    case 7:
      return {
        method: 'GET',
        path: `/flags/definitions${fuzzQuery(random, `token=${random.chance(0.5) ? percentEncode(token.slice(0, 1000)) : oddQueryValue(random)}`)}`,
        anonymous: random.chance(0.2),
      };
    case 8:
      return {
        method: 'GET',
        path: `/api/feature_flag/local_evaluation/${fuzzQuery(random, `token=${random.chance(0.5) ? percentEncode(token.slice(0, 1000)) : oddQueryValue(random)}`)}`,
      };
    case 9:
      return {
        method: 'GET',
        path: `/api/projects/${known.projectId}/feature_flags/local_evaluation/${fuzzQuery(random, `${random.pick(['token', 'api_key'])}=${random.chance(0.5) ? percentEncode(token.slice(0, 1000)) : oddQueryValue(random)}`)}`,
      };
    case 10:
      return {
        method: 'GET',
        path: `/${random.pick(['shared', 'embedded', 'shared'])}/${random.chance(0.5) ? percentEncode(oddString(random).slice(0, 300)) : oddSegment(random)}${random.chance(0.3) ? '/snapshots' : ''}${fuzzQuery(random)}`,
        anonymous: true,
      };
    default:
      return { method: random.pick(['GET', 'GET', 'POST', 'HEAD']), path: `/_health${fuzzQuery(random)}`, anonymous: true };
  }
}

/** A plausible body for an /api route, by what it manages. */
function apiTemplate(url: string, known: Known): Record<string, unknown> {
  if (url.includes('/feature_flags/'))
    return {
      key: 'fuzz-flag',
      name: 'Fuzz',
      filters: {
        groups: [{ properties: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }], rollout_percentage: 50 }],
        multivariate: null,
      },
      active: true,
      tags: ['a'],
    };
  if (url.includes('add_persons_to_static_cohort')) return { person_ids: [known.ids.personUuid] };
  if (url.includes('remove_person_from_static_cohort')) return { person_id: known.ids.personUuid };
  if (url.includes('/cohorts/'))
    return {
      name: 'Fuzz cohort',
      filters: {
        properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }] }] },
      },
      is_static: false,
    };
  if (url.includes('/insights/'))
    return {
      name: 'Fuzz insight',
      query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } },
      dashboards: [Number(known.ids.dashboard)],
    };
  if (url.includes('/dashboards/')) return { name: 'Fuzz dashboard', description: 'd', pinned: false, tags: [] };
  if (url.includes('/subscriptions/'))
    return {
      insight: Number(known.ids.insight),
      target_type: 'email',
      target_value: 'fuzz@example.com',
      frequency: 'daily',
      interval: 1,
      start_date: '2024-01-01T00:00:00Z',
    };
  if (url.includes('update_property')) return { key: 'plan', value: 'pro' };
  if (url.includes('delete_property')) return { $unset: 'plan' };
  if (url.includes('/split/')) return { main_distinct_id: 'fuzz-person' };
  if (url.includes('bulk_delete')) return { distinct_ids: ['nobody'], delete_events: false };
  if (url.includes('reset_person_distinct_id')) return { distinct_id: 'nobody' };
  if (url.includes('batch_by_distinct_ids')) return { distinct_ids: ['fuzz-person'] };
  if (url.includes('batch_by_uuids')) return { uuids: [known.ids.personUuid] };
  if (url.includes('/persons/')) return { properties: { plan: 'pro' } };
  if (url.includes('add_product_intent')) return { product_type: 'feature_flags', intent_context: 'fuzz' };
  if (url.includes('complete_product_onboarding')) return { type: 'feature_flags' };
  if (url.includes('/sharing/')) return { enabled: false };
  if (url.includes('/session_recordings/')) return { viewed: true };
  if (url.includes('environments')) return { name: 'Fuzz env', timezone: 'UTC', app_urls: [], anonymize_ips: false };
  return { name: 'Fuzz' };
}

/** The existing id a route's path parameter names, when there is one. */
function knownParam(name: string, url: string, known: Known): string {
  if (name === 'project_id') return String(known.projectId);
  if (name === 'person_id') return known.ids.personUuid!;
  if (name === 'event_id') return known.ids.eventUuid ?? '00000000-0000-0000-0000-000000000000';
  if (name === 'recording_id' || url.includes('/session_recordings/')) return 's1';
  for (const [segment, id] of [
    ['/feature_flags/', 'flag'],
    ['/cohorts/', 'cohort'],
    ['/insights/', 'insight'],
    ['/dashboards/', 'dashboard'],
    ['/subscriptions/', 'subscription'],
  ] as const) {
    if (url.includes(segment)) return known.ids[id]!;
  }
  return String(known.projectId);
}

/** Routes left out: they rotate or revoke the keys the fuzz itself uses, or delete what it needs. */
export function fuzzable(route: { method: string; url: string; config?: { methodNotAllowed?: boolean } | undefined }): boolean {
  if (!route.url.startsWith('/api/') || route.config?.methodNotAllowed) return false;
  if (route.method === 'DELETE') return false;
  if (route.method !== 'GET' && /personal_api_keys/.test(route.url)) return false;
  return !/reset_token|rotate_secret_token|delete_secret_token_backup/.test(route.url);
}

export function apiRequest(random: Random, known: Known, routes: Array<{ method: string; url: string }>): FuzzRequest {
  const route = random.pick(routes);
  const path = route.url.replace(/:(\w+)/g, (_, name: string) =>
    random.chance(0.8) ? knownParam(name, route.url, known) : oddSegment(random),
  );
  if (route.method === 'GET') return { method: 'GET', path: `${path}${fuzzQuery(random)}` };
  const template = apiTemplate(route.url, known);
  const text = random.chance(0.1) ? toJson(fuzzValue(random)) : toJson(mutate(random, template));
  const encoded = encodeBody(random, text, true);
  return {
    method: route.method,
    path: `${path}${random.chance(0.1) ? fuzzQuery(random) : ''}`,
    body: encoded.body,
    headers: encoded.headers,
  };
}

/** An HTTP call as the fuzz's setup makes it: JSON in, JSON out, with the personal key unless `anonymous`. */
export type SetupCall = (
  path: string,
  options: { method?: string; body?: unknown; anonymous?: boolean },
) => Promise<{ status: number; body: any }>;

/**
 * One of each thing the routes name (a person, an event, a flag, a cohort, a dashboard, an
 * insight, a subscription), made through the API, so that fuzzed requests reach past their
 * lookups. `settle` waits until what was captured is stored.
 */
export async function prepareKnown(call: SetupCall, projectId: number, token: string, settle: () => Promise<void>): Promise<Known> {
  const known: Known = { projectId, token, ids: {} };
  const base = `/api/projects/${projectId}`;
  const made = async (path: string, body: unknown) => {
    const res = await call(`${base}/${path}`, { method: 'POST', body });
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return String(res.body.id);
  };
  const captured = await call('/batch/', {
    method: 'POST',
    anonymous: true,
    body: { api_key: token, batch: [{ event: '$pageview', distinct_id: 'fuzz-person', properties: { plan: 'pro', $session_id: 's1' } }] },
  });
  if (captured.status !== 200) throw new Error(`/batch/ answered ${captured.status}`);
  await settle();
  known.ids.personUuid = (await call(`${base}/persons/?distinct_id=fuzz-person`, {})).body.results[0].uuid;
  known.ids.eventUuid = (await call(`${base}/events/?limit=1`, {})).body.results[0].id;
  known.ids.flag = await made('feature_flags/', { key: 'fuzz-base', filters: { groups: [{ rollout_percentage: 100 }] } });
  known.ids.cohort = await made('cohorts/', {
    name: 'Fuzz',
    filters: {
      properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }] }] },
    },
  });
  known.ids.dashboard = await made('dashboards/', { name: 'Fuzz' });
  known.ids.insight = await made('insights/', {
    name: 'Fuzz',
    query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } },
  });
  known.ids.subscription = await made('subscriptions/', {
    insight: Number(known.ids.insight),
    target_type: 'email',
    target_value: 'fuzz@example.com',
    frequency: 'daily',
    start_date: '2024-01-01T00:00:00Z',
  });
  return known;
}
