/**
 * The sessions table merged once ingestion goes quiet (events/sessions-merger.ts): sessions whose
 * events came in several inserts are several parts and several rows each; the merger leaves them
 * while parts are new, then merges them into one part of one row a session, logged, and web
 * analytics answers the same before and after. Real server, real embedded ClickHouse; the
 * server's own merger is off, the test drives one with its quiet time.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { mergeDecision, SessionsMerger, SESSIONS_MERGE_LIMITS } from '../../src/events/sessions-merger.js';
import { sessionsParts } from '../../src/events/sessions-parts-store.js';
import { BREAKDOWNS, type Breakdown } from '../../src/web-analytics/query.js';
import { webOverview, webStatsTables } from '../../src/web-analytics/store.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ SESSIONS_MERGE: 'off' });

/** A logger keeping what it logs. */
function recording(): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return { log: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }), lines };
}

const SESSIONS = 12;
const SOURCES = [{ utm_source: 'google', utm_medium: 'cpc' }, { $referring_domain: 'news.example.org' }, { gclid: 'x1' }, {}];
const started = Date.now() - 3 * 3_600_000;

/** Round `round` of every session: a pageview each (an autocapture in some), one /batch/ and one insert a round. */
async function sendRound(round: number): Promise<void> {
  const events = [];
  for (let s = 0; s < SESSIONS; s++) {
    const at = new Date(started + s * 60_000 + round * 20_000).toISOString();
    const page = `/page-${(s + round) % 5}`;
    const properties = {
      $session_id: `session-${s}`,
      $current_url: `https://example.com${page}`,
      $pathname: page,
      $browser: s % 2 ? 'Firefox' : 'Chrome',
      ...(round === 0 ? SOURCES[s % SOURCES.length] : {}),
    };
    events.push({ event: '$pageview', distinct_id: `user-${s % 7}`, timestamp: at, properties });
    if ((s + round) % 3 === 0) events.push({ event: '$autocapture', distinct_id: `user-${s % 7}`, timestamp: at, properties });
  }
  await server.ingest(events);
}

async function answers() {
  const { analytics } = server.running.ctx;
  const team = server.bootstrap.team.id;
  const current = { from: new Date(started - 86_400_000), to: new Date(Date.now() + 60_000) };
  const previous = { from: new Date(current.from.getTime() - 2 * 86_400_000), to: current.from };
  const tables = await webStatsTables(analytics, team, { current, previous: null }, [], Object.keys(BREAKDOWNS) as Breakdown[], 10);
  return { overview: await webOverview(analytics, team, { current, previous }, []), tables: Object.fromEntries(tables) };
}

describe('the sessions merger', () => {
  it('merges a quiet table of several parts into one row a session, answers unchanged', async () => {
    for (let round = 0; round < 3; round++) await sendRound(round);
    const { database, analytics } = server.running.ctx;
    const before = await sessionsParts(analytics);
    // ClickHouse leaves a few small parts of a session's rows unmerged on its own.
    expect(before.parts).toBeGreaterThanOrEqual(2);
    expect(before.rows).toBeGreaterThan(SESSIONS);
    const answered = await answers();
    expect(answered.overview.current.sessions).toBe(SESSIONS);

    const waiting = new SessionsMerger(database, analytics, pino({ level: 'silent' }), { limits: { quietSeconds: 3600 } });
    expect(await waiting.mergeIfDue()).toBe('ingesting');
    expect(await sessionsParts(analytics)).toMatchObject({ parts: before.parts, rows: before.rows });

    const { log, lines } = recording();
    const merger = new SessionsMerger(database, analytics, log, { limits: { quietSeconds: 0 } });
    expect(await merger.mergeIfDue()).toBe('merge');
    expect(await sessionsParts(analytics)).toMatchObject({ parts: 1, rows: SESSIONS });
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'sessions table merged into one part',
        partsBefore: before.parts,
        parts: 1,
        rows: SESSIONS,
      }),
    );
    expect(await answers()).toEqual(answered);
    // Nothing left to merge.
    expect(await merger.mergeIfDue()).toBe('one part');
  });

  it('waits for quiet or an old last merge, and leaves tables too large or with too little outside their largest part', () => {
    const limits = { ...SESSIONS_MERGE_LIMITS, quietSeconds: 30 };
    const quiet = { parts: 3, rows: 1000, largestRows: 500, quietSeconds: 60, largestAgeSeconds: 600 };
    expect(mergeDecision(quiet, limits)).toBe('merge');
    expect(mergeDecision({ ...quiet, quietSeconds: 5 }, limits)).toBe('ingesting');
    // Under steady traffic, once the last merge is old enough.
    expect(mergeDecision({ ...quiet, quietSeconds: 5, largestAgeSeconds: limits.busySeconds }, limits)).toBe('merge');
    expect(mergeDecision({ ...quiet, largestRows: 950 }, limits)).toBe('too little to merge');
    expect(mergeDecision({ ...quiet, rows: limits.maxRows + 1, largestRows: 1 }, limits)).toBe('too large');
    expect(mergeDecision({ ...quiet, parts: 1, largestRows: 1000 }, limits)).toBe('one part');
  });
});
