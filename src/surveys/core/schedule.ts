/**
 * What PostHog's Survey model computes on every save (`update_survey_iterations`,
 * `update_response_sampling_limits`), as pure functions of the survey's fields.
 */
export const MAX_ITERATION_COUNT = 500;
const DAY_MS = 86_400_000;

export interface IterationFields {
  iterationCount: number | null;
  iterationFrequencyDays: number | null;
  startDate: string | null;
  currentIteration: number | null;
  currentIterationStartDate: string | null;
  iterationStartDates: string[] | null;
}

/**
 * The iteration fields after a save: no recurrence clears them; a recurring survey not started
 * has no start dates yet; a started one gets one start date every `iterationFrequencyDays` days
 * from its start, and its first iteration when it had none.
 */
export function surveyIterations(fields: IterationFields): IterationFields {
  const { iterationCount, iterationFrequencyDays, startDate } = fields;
  if (iterationCount === null || iterationFrequencyDays === null || iterationCount === 0 || iterationFrequencyDays === 0) {
    return { ...fields, iterationStartDates: [], currentIteration: null, currentIterationStartDate: null };
  }
  if (startDate === null) return { ...fields, iterationStartDates: null };
  const start = new Date(startDate).getTime();
  const count = Math.min(iterationCount, MAX_ITERATION_COUNT);
  const iterationStartDates = Array.from({ length: count }, (_, i) => new Date(start + i * iterationFrequencyDays * DAY_MS).toISOString());
  const next = { ...fields, iterationStartDates };
  if (iterationCount > 0 && (fields.currentIteration === null || fields.currentIteration === 0)) {
    next.currentIteration = 1;
    next.currentIterationStartDate = startDate;
  }
  return next;
}

export interface SamplingScheduleFields {
  responseSamplingIntervalType: string | null;
  responseSamplingInterval: number | null;
  responseSamplingLimit: number | null;
  responseSamplingStartDate: string | null;
}

/** Python's `datetime.isoformat()` of an aware UTC instant: `YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00`. */
function pythonIsoformat(ms: number): string {
  const date = new Date(ms);
  const micros = date.getUTCMilliseconds() * 1000;
  return `${date.toISOString().slice(0, 19)}${micros ? `.${String(micros).padStart(6, '0')}` : ''}+00:00`;
}

/**
 * `update_response_sampling_limits`: the cumulative daily response limits and rollout of a sampled
 * survey, as the JSON text PostHog stores in its JSON field; null when sampling is off.
 */
export function samplingDailyLimits(fields: SamplingScheduleFields): string | null {
  const { responseSamplingIntervalType: type, responseSamplingInterval: interval, responseSamplingLimit: limit } = fields;
  if (type === null || limit === 0 || fields.responseSamplingStartDate === null) return null;
  const days = type === 'day' ? interval : type === 'week' ? (interval ?? 0) * 7 : type === 'month' ? (interval ?? 0) * 30 : null;
  // PostHog fails on a missing interval or limit here (arithmetic on None); Hoglet keeps sampling off.
  if (days === null || !Number.isInteger(days) || days <= 0 || limit === null) return null;
  const perDay = Math.floor(limit / days);
  const remaining = limit % days;
  const increment = 100 / days;
  const start = new Date(fields.responseSamplingStartDate).getTime();
  const schedule: Array<{ date: string; daily_response_limit: number; rollout_percentage: number }> = [];
  let cumulative = 0;
  let rollout = increment;
  for (let day = 0; day < days; day++) {
    cumulative += perDay + (day < remaining ? 1 : 0);
    schedule.push({
      date: pythonIsoformat(start + day * DAY_MS),
      daily_response_limit: cumulative,
      rollout_percentage: Math.round(rollout * 100) / 100,
    });
    rollout += increment;
  }
  schedule[schedule.length - 1]!.rollout_percentage = 100.0;
  return pythonJsonDumps(schedule);
}

/** Python's `json.dumps` spacing (`", "` and `": "`), with 100.0 written as a float. */
function pythonJsonDumps(schedule: Array<{ date: string; daily_response_limit: number; rollout_percentage: number }>): string {
  const number = (n: number) => (Number.isInteger(n) ? `${n}.0` : String(n));
  const items = schedule.map(
    (entry) =>
      `{"date": ${JSON.stringify(entry.date)}, "daily_response_limit": ${entry.daily_response_limit}, "rollout_percentage": ${number(entry.rollout_percentage)}}`,
  );
  return `[${items.join(', ')}]`;
}
