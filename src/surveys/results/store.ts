/**
 * Survey results, stats and response counts computed by ClickHouse from the environment's
 * `survey sent` / `survey shown` / `survey dismissed` events.
 *
 * Submissions: posthog-js sends one `survey sent` per answered question when partial responses are
 * on, all with the same `$survey_submission_id`; the last one (by timestamp) holds every answer
 * and stands for the submission. Events without a submission id (older SDKs) are a submission
 * each. As PostHog does, a submission is found over the survey's whole life, then kept when its
 * last event falls in the requested period.
 *
 * Only aggregates come back: per question the submissions that answered it and the count of each
 * value (bounded per question), and for open and link questions the newest answers.
 */
import type { AnalyticsEngine } from '../../platform/analytics/engine.js';
import { ch, chTime, fromClickHouseTime, join, raw, type ChSql } from '../../platform/analytics/sql.js';
import { personIdExpression, personOverridesJoin } from '../../events/analytics-columns.js';
import { drfDateTime } from '../../posthog/python-datetime.js';
import {
  isListed,
  MAX_ANSWERS,
  MAX_OTHER_CHOICES,
  questionType,
  ratingScale,
  responseKeys,
  SURVEY_DISMISSED,
  SURVEY_SENT,
  SURVEY_SHOWN,
  type EventStatsRow,
  type QuestionAggregate,
  type QuestionDefinition,
  type ResultsRange,
} from './core/index.js';

/** The environment's id, bound once for the whole statement. */
const TEAM = '{team:Int64}';

async function run<T>(analytics: AnalyticsEngine, teamId: number, statement: ChSql): Promise<T[]> {
  const { sql, params } = statement.compile();
  return analytics.query<T>(sql, { ...params, team: teamId });
}

const surveyIdOf = (alias: string) => raw(`JSONExtractString(${alias}.properties, '$survey_id')`);
const submissionKey = (alias: string) =>
  raw(
    `if(JSONExtractString(${alias}.properties, '$survey_submission_id') = '', toString(${alias}.uuid), JSONExtractString(${alias}.properties, '$survey_submission_id'))`,
  );

/**
 * The survey's submissions over its life (`life`), each as its last event: properties, distinct
 * id and timestamp.
 */
function submissions(analytics: AnalyticsEngine, surveyId: string, life: ResultsRange): ChSql {
  return ch`SELECT last.1 AS properties, last.2 AS distinct_id, last.3 AS timestamp
    FROM (
      SELECT argMax(tuple(e.properties, e.distinct_id, e.timestamp), tuple(e.timestamp, e.uuid)) AS last
      FROM ${raw(analytics.table('events'))} AS e
      WHERE e.team_id = ${raw(TEAM)} AND e.event = ${SURVEY_SENT} AND ${surveyIdOf('e')} = ${surveyId}
        AND e.timestamp >= ${chTime(life.from)} AND e.timestamp <= ${chTime(life.to)}
      GROUP BY ${submissionKey('e')}
    )`;
}

/**
 * An answer in property `key` as a list of non-empty texts: a multiple-choice answer's choices, a
 * text or a number (rating answers come as either) as one item; missing, null or empty as none.
 */
function answerValues(key: string): ChSql {
  return ch`arrayFilter(x -> x != '', multiIf(
      JSONType(properties, ${key}) = 'Array',
        arrayMap(x -> if(JSONType(x) = 'String', JSONExtractString(x), x), JSONExtractArrayRaw(properties, ${key})),
      JSONType(properties, ${key}) = 'String', [JSONExtractString(properties, ${key})],
      JSONType(properties, ${key}) IN ('Int64', 'UInt64', 'Double', 'Bool'), [JSONExtractRaw(properties, ${key})],
      CAST([], 'Array(String)')))`;
}

/** Each question's answer (`v<index>`), from the first of its response keys that holds one. */
function answerColumns(questions: readonly QuestionDefinition[]): ChSql {
  const columns = questions.map((question, index) => {
    const [first, ...rest] = responseKeys(question, index).map((key) => answerValues(key));
    let value = first!;
    rest.forEach((fallback, k) => {
      value = ch`if(notEmpty(${value} AS ${raw(`k${index}_${k}`)}), ${raw(`k${index}_${k}`)}, ${fallback})`;
    });
    return ch`${value} AS ${raw(`v${index}`)}`;
  });
  return join(columns);
}

/** The values a question's counts must keep whatever else is answered: its choices, its scale. */
function expectedValues(question: QuestionDefinition): string[] {
  const type = questionType(question);
  if (type === 'rating') return ratingScale(question).values.map(String);
  if (type === 'single_choice' || type === 'multiple_choice') return (question.choices ?? []).filter((c) => typeof c === 'string');
  return [];
}

interface CountRow {
  q: number;
  kind: number;
  value: string;
  n: number;
}

interface AnswerDbRow {
  q: number;
  value: string;
  distinct_id: string;
  timestamp: string;
}

/**
 * The survey's submissions in `range` and each question's aggregate: two statements, the counts
 * and (when the survey has open or link questions) the newest answers.
 */
export async function surveyAggregates(
  analytics: AnalyticsEngine,
  teamId: number,
  surveyId: string,
  questions: readonly QuestionDefinition[],
  life: ResultsRange,
  range: ResultsRange,
): Promise<{ responses: number; aggregates: QuestionAggregate[] }> {
  const inRange = ch`timestamp >= ${chTime(range.from)} AND timestamp <= ${chTime(range.to)}`;
  const answers =
    questions.length === 0
      ? ch`SELECT distinct_id, timestamp FROM (${submissions(analytics, surveyId, life)}) WHERE ${inRange}`
      : ch`SELECT distinct_id, timestamp, ${answerColumns(questions)} FROM (${submissions(analytics, surveyId, life)}) WHERE ${inRange}`;
  // Per submission: (question, its values, whether only answered-or-not counts); question -1
  // stands for the submission itself, so its count is the number of submissions.
  const items = join([
    raw(`(-1, [''], 1)`),
    ...questions.map((question, index) => raw(`(${index}, v${index}, ${isListed(questionType(question)) ? 1 : 0})`)),
  ]);
  const expected = questions.map((question, index) => ch`q = ${index}, has(${expectedValues(question)}, value)`);
  // Expected values first, so the cap never drops a choice (a literal would read as a column's position).
  const expectedFirst = expected.length === 0 ? raw('') : ch`multiIf(${join(expected)}, 0) DESC, `;
  const maxChoices = Math.max(0, ...questions.map((q) => expectedValues(q).length));
  const counts = await run<CountRow>(
    analytics,
    teamId,
    ch`SELECT q, kind, value, count() AS n
      FROM (
        SELECT item.1 AS q, item.2 AS vals, item.3 AS listed
        FROM (${answers}) ARRAY JOIN [${items}] AS item
        WHERE notEmpty(vals)
      )
      ARRAY JOIN if(listed = 1, [(0, '')], arrayPushFront(arrayMap(x -> (1, x), vals), (0, ''))) AS entry
      GROUP BY q, entry.1 AS kind, entry.2 AS value
      ORDER BY q, kind, ${expectedFirst}n DESC, value
      LIMIT ${raw(String(1 + maxChoices + MAX_OTHER_CHOICES))} BY q`,
  );
  const listed = questions.map((question, index) => ({ question, index })).filter(({ question }) => isListed(questionType(question)));
  const newest =
    listed.length === 0
      ? []
      : await run<AnswerDbRow>(
          analytics,
          teamId,
          ch`SELECT item.1 AS q, item.2 AS value, distinct_id, timestamp
            FROM (${answers}) ARRAY JOIN [${join(listed.map(({ index }) => raw(`(${index}, arrayStringConcat(v${index}, ', '))`)))}] AS item
            WHERE value != ''
            ORDER BY q, timestamp DESC, distinct_id
            LIMIT ${raw(String(MAX_ANSWERS))} BY q`,
        );
  const aggregates = new Map<
    number,
    { index: number; answered: number; values: { value: string; count: number }[]; answers: QuestionAggregate['answers'][number][] }
  >();
  const of = (index: number) => {
    let aggregate = aggregates.get(index);
    if (!aggregate) aggregates.set(index, (aggregate = { index, answered: 0, values: [], answers: [] }));
    return aggregate;
  };
  let responses = 0;
  for (const row of counts) {
    const q = Number(row.q);
    if (q === -1) responses = Number(row.n);
    else if (Number(row.kind) === 0) of(q).answered = Number(row.n);
    else of(q).values.push({ value: row.value, count: Number(row.n) });
  }
  for (const row of newest) {
    of(Number(row.q)).answers.push({ value: row.value, distinct_id: row.distinct_id, timestamp: fromClickHouseTime(row.timestamp) });
  }
  return { responses, aggregates: [...aggregates.values()] };
}

interface StatsDbRow {
  event: string;
  total_count: number;
  unique_persons: number;
  first_seen: string;
  last_seen: string;
}

/**
 * PostHog's survey stats rows: per survey event its count, unique persons, first and last time in
 * the period (either end open); `survey sent` counted once a submission (its last event),
 * dismissals of a partly answered survey left out. Also the persons who both dismissed and sent.
 */
export async function surveyEventStats(
  analytics: AnalyticsEngine,
  teamId: number,
  surveyId: string,
  period: { from: Date | null; to: Date | null },
): Promise<{ rows: EventStatsRow[]; dismissedAndSent: number }> {
  const events = raw(analytics.table('events'));
  const conditions = [raw(`e.team_id = ${TEAM}`), ch`${surveyIdOf('e')} = ${surveyId}`];
  if (period.from) conditions.push(ch`e.timestamp >= ${chTime(period.from)}`);
  if (period.to) conditions.push(ch`e.timestamp <= ${chTime(period.to)}`);
  conditions.push(ch`(e.event != ${SURVEY_DISMISSED} OR NOT JSONExtractBool(e.properties, '$survey_partially_completed'))`);
  const where = join(conditions, ' AND ');
  const lastOfSubmission = ch`SELECT argMax(s.uuid, s.timestamp) FROM ${events} AS s
    WHERE s.team_id = ${raw(TEAM)} AND s.event = ${SURVEY_SENT} AND ${surveyIdOf('s')} = ${surveyId}
    GROUP BY ${submissionKey('s')}`;
  const person = raw(personIdExpression());
  const [rows, both] = await Promise.all([
    run<StatsDbRow>(
      analytics,
      teamId,
      ch`SELECT e.event AS event, count() AS total_count, uniqExact(${person}) AS unique_persons,
          min(e.timestamp) AS first_seen, max(e.timestamp) AS last_seen
        FROM ${events} AS e ${raw(personOverridesJoin(analytics, TEAM))}
        WHERE ${where} AND e.event IN (${SURVEY_SHOWN}, ${SURVEY_DISMISSED}, ${SURVEY_SENT})
          AND (e.event != ${SURVEY_SENT} OR e.uuid IN (${lastOfSubmission}))
        GROUP BY e.event`,
    ),
    run<{ n: number }>(
      analytics,
      teamId,
      ch`SELECT count() AS n FROM (
          SELECT ${person} AS person
          FROM ${events} AS e ${raw(personOverridesJoin(analytics, TEAM))}
          WHERE ${where} AND e.event IN (${SURVEY_DISMISSED}, ${SURVEY_SENT})
          GROUP BY person
          HAVING countIf(e.event = ${SURVEY_DISMISSED}) > 0 AND countIf(e.event = ${SURVEY_SENT}) > 0
        )`,
    ),
  ]);
  return {
    rows: rows.map((r) => ({
      event: r.event,
      total_count: Number(r.total_count),
      unique_persons: Number(r.unique_persons),
      first_seen: drfDateTime(r.first_seen),
      last_seen: drfDateTime(r.last_seen),
    })),
    dismissedAndSent: Number(both[0]?.n ?? 0),
  };
}

/**
 * PostHog's responses_count: per survey id, its submissions (last `survey sent` of each) since
 * `since`. Events of surveys that no longer exist count too, as in PostHog.
 */
export async function surveyResponseCounts(analytics: AnalyticsEngine, teamId: number, since: Date): Promise<Record<string, number>> {
  const events = raw(analytics.table('events'));
  const rows = await run<{ survey_id: string; n: number }>(
    analytics,
    teamId,
    ch`SELECT survey_id, count() AS n FROM (
        SELECT ${surveyIdOf('e')} AS survey_id
        FROM ${events} AS e
        WHERE e.team_id = ${raw(TEAM)} AND e.event = ${SURVEY_SENT} AND e.timestamp >= ${chTime(since)}
        GROUP BY survey_id, ${submissionKey('e')}
      )
      GROUP BY survey_id
      ORDER BY survey_id`,
  );
  return Object.fromEntries(rows.map((r) => [r.survey_id, Number(r.n)]));
}
