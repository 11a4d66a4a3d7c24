/**
 * The persons behind one step of a funnel (PostHog's FunnelsActorsQuery over a FunnelsQuery): those
 * the funnel counts as reaching the step, or as dropping off right before it, of one breakdown value
 * as the funnel's result labels it. They are read from personLevels, the very rows countFunnel
 * counts, so a step's persons are always as many as its count.
 */
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, join, raw, type ChSql } from '../platform/analytics/sql.js';
import { personIdExpression, personOverridesJoin } from '../events/analytics-columns.js';
import type { ActorRow, FunnelsActorsSource } from './actors-query.js';
import { ACTOR_AGGREGATES, actorRow, type ActorAggregates } from './actors-columns.js';
import { filtersCondition, personLevels, run, stepCondition } from './funnels-store.js';
import type { FunnelsQuery } from './funnels.js';

/**
 * The step's persons by their `level` (the furthest step reached): step N > 0 is reached by those
 * at level N or beyond; -N holds those who reached step N - 1 and stopped there.
 */
function levelCondition(step: number): ChSql {
  return step > 0 ? ch`level >= ${step}` : ch`level = ${-step - 1}`;
}

/**
 * The persons of one breakdown value, as funnelResults labels them: a missing value shows as '' (as
 * does an empty one, so '' stands for both). Values past breakdown_limit are left out of the result
 * rather than gathered as "other", so there is no such label; asked for, such a value has its own
 * persons, as countFunnel counted them.
 */
function breakdownCondition(query: FunnelsQuery, breakdown: string | null): ChSql {
  if (query.breakdown === null || breakdown === null) return raw('1');
  return ch`ifNull(breakdown_value, '') = ${breakdown}`;
}

/**
 * A page of the step's persons, by uuid (as text) ascending; `limit + 1` rows are asked for so the
 * caller can tell whether more follow. Each comes with their events of any step in the range (those
 * the funnel read them from): how many, their distinct ids and up to 100 of them, for recordings.
 */
export async function funnelActors(
  analytics: AnalyticsEngine,
  teamId: number,
  query: FunnelsQuery,
  range: { from: Date; to: Date },
  source: FunnelsActorsSource,
  page: { limit: number; offset: number },
): Promise<ActorRow[]> {
  const persons = ch`SELECT person FROM (${personLevels(analytics, query, range)})
        WHERE ${levelCondition(source.step)} AND ${breakdownCondition(query, source.breakdown)}
        ORDER BY toString(person)
        LIMIT ${raw(String(page.limit + 1))} OFFSET ${raw(String(page.offset))}`;
  // The events personPaths reads, those of the page's persons: each counted person did a first step among them.
  const anyStep = join(query.steps.map(stepCondition), ' OR ');
  const person = raw(personIdExpression());
  const rows = await run<ActorAggregates>(
    analytics,
    teamId,
    query,
    ch`SELECT toString(${person}) AS person, ${ACTOR_AGGREGATES}
      FROM ${raw(analytics.table('events'))} AS e
      ${raw(personOverridesJoin(analytics, '{team:Int64}'))}
      WHERE e.team_id = {team:Int64} AND e.timestamp >= ${chTime(range.from)} AND e.timestamp < ${chTime(range.to)}
        AND ${filtersCondition(query.properties)} AND (${anyStep})
        AND ${person} IN (${persons})
      GROUP BY person
      ORDER BY person`,
  );
  return rows.map(actorRow);
}
