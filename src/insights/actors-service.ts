/**
 * An insight's actors (PostHog's ActorsQuery over an InsightActorsQuery or a FunnelsActorsQuery):
 * the persons behind one value, found in ClickHouse and shown as the persons store holds them now.
 */
import type { Team } from '../environments/models.js';
import { getPersonsByUuids, type Person } from '../persons/store.js';
import { LIST_DISTINCT_IDS_LIMIT, orderDistinctIds } from '../persons/serialize.js';
import { drfDateTime } from '../posthog/python-datetime.js';
import { recordedSessions } from '../recordings/store.js';
import type {
  ActorColumn,
  ActorRow,
  ActorsQuery,
  FunnelsActorsSource,
  LifecycleActorsSource,
  RetentionActorsSource,
  StickinessActorsSource,
  TrendsActorsSource,
} from './actors-query.js';
import { lifecycleActors, lifecycleWindow } from './lifecycle-store.js';
import { stickinessActors } from './stickiness-store.js';
import { readRetentionInterval } from './retention.js';
import { retentionActors } from './retention-store.js';
import { funnelActors } from './funnel-actors-store.js';
import { TrendsQueryError } from './query-error.js';
import { resolvedFrom, retentionPeriods, trendsPeriods, zoneOfTeam, type InsightStores } from './query-window.js';
import { trendsActors } from './trends-actors-store.js';
import { bucketIndex, parseTrendsDate, trendsBounds, type TrendsWindow } from './trends-window.js';

/** ClickHouse's type of each column, as PostHog's response names them (a retention's intervals are booleans). */
const COLUMN_TYPES: Record<string, string> = {
  person: 'Tuple(UUID, String)',
  actor: 'Tuple(UUID, String)',
  event_count: 'UInt64',
  event_distinct_ids: 'Array(String)',
  matched_recordings: "Array(Tuple(String, Array(Tuple(DateTime64(6, 'UTC'), UUID, String))))",
};

/** A person as an actors row shows them (PostHog's PersonStrategy): `id` is the uuid. */
function personActor(person: Person & { distinctIds: string[] }) {
  return {
    id: person.uuid,
    distinct_ids: orderDistinctIds(person.distinctIds).slice(0, LIST_DISTINCT_IDS_LIMIT),
    properties: person.properties,
    is_identified: person.isIdentified,
    created_at: drfDateTime(person.createdAt),
  };
}

/** The actor's recorded sessions, each with the actor's events in it (PostHog's `matched_recordings`). */
function matchedRecordings(row: ActorRow, recorded: Set<string>) {
  const sessions = new Map<string, Array<{ timestamp: string; uuid: string; window_id: string }>>();
  for (const event of row.events) {
    if (!recorded.has(event.sessionId)) continue;
    const events = sessions.get(event.sessionId) ?? [];
    events.push({ timestamp: event.timestamp, uuid: event.uuid, window_id: event.windowId });
    sessions.set(event.sessionId, events);
  }
  return [...sessions].map(([session_id, events]) => ({
    session_id,
    events: events.sort((a, b) => a.timestamp.localeCompare(b.timestamp)),
  }));
}

/**
 * The bucket `day` names in `window`: one of its `days`, or an instant (an ISO date or date-time; a
 * date-time without an offset in the environment's zone) within one of its buckets. With the previous
 * period, a day of the current period stands for the bucket at the same place in the previous one,
 * as PostHog's frontend sends the current period's day for both.
 */
function bucketOf(day: string, window: TrendsWindow, current: TrendsWindow | null, now: Date): number {
  const listed = window.days.indexOf(day);
  if (listed >= 0) return listed;
  if (current !== null) {
    const place = current.days.indexOf(day);
    if (place >= 0 && place < window.buckets.length) return place;
  }
  const instant = parseTrendsDate(day, now, window.timezone);
  const bucket = instant === null ? -1 : bucketIndex(window, instant.getTime());
  if (bucket >= 0) return bucket;
  throw new TrendsQueryError(
    `day ${JSON.stringify(day)} is in none of the ${current === null ? '' : 'previous '}period's buckets (${window.days[0] ?? ''} to ${window.days.at(-1) ?? ''}).`,
    'query__source__day',
  );
}

async function trendsRows(
  stores: InsightStores,
  team: Team,
  source: TrendsActorsSource,
  query: ActorsQuery,
  now: Date,
): Promise<ActorRow[]> {
  const periods = await trendsPeriods(stores.analytics, team.id, source.query, now, zoneOfTeam(team));
  const previous = source.compare === 'previous';
  const window = previous ? periods.previousWindow! : periods.window;
  const bucket = source.day === null ? null : bucketOf(source.day, window, previous ? periods.window : null, now);
  const point = { series: periods.query.series[source.series]!, window, bucket, breakdown: source.breakdown };
  return trendsActors(stores.analytics, team.id, periods.query, point, query);
}

async function funnelsRows(
  stores: InsightStores,
  team: Team,
  source: FunnelsActorsSource,
  query: ActorsQuery,
  now: Date,
): Promise<ActorRow[]> {
  const funnel = { ...source.query, dateFrom: await resolvedFrom(stores.analytics, team.id, source.query.dateFrom, now) };
  // As the funnel's steps are counted: the range whole, from the start of date_from's day.
  const range = trendsBounds({ interval: 'day', dateFrom: funnel.dateFrom, dateTo: funnel.dateTo }, now, zoneOfTeam(team));
  return funnelActors(stores.analytics, team.id, funnel, range, source, query);
}

async function retentionRows(
  stores: InsightStores,
  team: Team,
  source: RetentionActorsSource,
  query: ActorsQuery,
  now: Date,
): Promise<ActorRow[]> {
  const window = await retentionPeriods(stores.analytics, team.id, source.query, now, zoneOfTeam(team));
  if (source.cohort >= window.buckets.length) {
    throw new TrendsQueryError(
      `interval must be the index of one of the retention's ${window.buckets.length} cohorts.`,
      'query__source__interval',
    );
  }
  return retentionActors(stores.analytics, team.id, source.query, window, source.cohort, query);
}

async function lifecycleRows(
  stores: InsightStores,
  team: Team,
  source: LifecycleActorsSource,
  query: ActorsQuery,
  now: Date,
): Promise<ActorRow[]> {
  const { query: lifecycle, window } = await lifecycleWindow(stores.analytics, team.id, source.query, now, zoneOfTeam(team));
  const bucket = bucketOf(source.day, window, null, now);
  return lifecycleActors(stores.analytics, team.id, lifecycle, window, { bucket: window.buckets[bucket]!, status: source.status }, query);
}

async function stickinessRows(
  stores: InsightStores,
  team: Team,
  source: StickinessActorsSource,
  query: ActorsQuery,
  now: Date,
): Promise<ActorRow[]> {
  const periods = await trendsPeriods(stores.analytics, team.id, source.query.trends, now, zoneOfTeam(team));
  const window = source.compare === 'previous' ? periods.previousWindow! : periods.window;
  const stickiness = { ...source.query, trends: periods.query };
  const point = { series: periods.query.series[source.series]!, window, intervals: source.intervals };
  return stickinessActors(stores.analytics, team.id, stickiness, point, query);
}

function rowsOf(stores: InsightStores, team: Team, query: ActorsQuery, now: Date): Promise<ActorRow[]> {
  const { source } = query;
  switch (source.kind) {
    case 'trends':
      return trendsRows(stores, team, source, query, now);
    case 'funnels':
      return funnelsRows(stores, team, source, query, now);
    case 'retention':
      return retentionRows(stores, team, source, query, now);
    case 'lifecycle':
      return lifecycleRows(stores, team, source, query, now);
    case 'stickiness':
      return stickinessRows(stores, team, source, query, now);
  }
}

/**
 * PostHog's ActorsQueryResponse: rows aligned with `columns`, a page of `limit` from `offset`,
 * `hasMore` when another page follows. A person deleted since their events were sent is shown by
 * uuid and those distinct ids alone, and counted in `missing_actors_count`, as PostHog does.
 */
export async function actorsAnswer(stores: InsightStores, team: Team, query: ActorsQuery, now: Date) {
  const rows = (await rowsOf(stores, team, query, now)).slice(0, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const persons = await getPersonsByUuids(
    stores.database.db,
    team.id,
    page.map((row) => row.person),
  );
  const recorded = query.select.includes('matched_recordings')
    ? await recordedSessions(
        stores.database.db,
        team.id,
        page.flatMap((row) => row.events.map((event) => event.sessionId)),
      )
    : new Set<string>();
  const cell = (row: ActorRow, column: ActorColumn): unknown => {
    if (column === 'event_count') return row.eventCount;
    if (column === 'event_distinct_ids') return row.distinctIds;
    if (column === 'matched_recordings') return matchedRecordings(row, recorded);
    const interval = readRetentionInterval(column);
    if (interval !== null) return row.appearances?.includes(interval) ?? false;
    const person = persons.get(row.person);
    return person ? personActor(person) : { id: row.person, distinct_ids: row.distinctIds };
  };
  return {
    results: page.map((row) => query.select.map((column) => cell(row, column))),
    columns: query.select,
    types: query.select.map((column) => COLUMN_TYPES[column] ?? 'UInt8'),
    hasMore: rows.length > query.limit,
    limit: query.limit,
    offset: query.offset,
    missing_actors_count: page.filter((row) => !persons.has(row.person)).length,
  };
}
