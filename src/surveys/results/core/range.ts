/**
 * The period a survey's results cover: the requested range, within the survey's own life (from
 * its start date, or its creation while it has none, to its end date, or now while it runs).
 */
import type { SurveyDefinition } from './types.js';

export interface ResultsRange {
  from: Date;
  to: Date;
}

function instant(value: string | null): Date | null {
  if (value === null) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time);
}

export function resultsRange(
  survey: Pick<SurveyDefinition, 'start_date' | 'end_date' | 'created_at'>,
  requested: { from: Date | null; to: Date | null },
  now: Date,
): ResultsRange {
  const start = instant(survey.start_date) ?? instant(survey.created_at) ?? new Date(0);
  const end = instant(survey.end_date) ?? now;
  const from = requested.from !== null && requested.from > start ? requested.from : start;
  let to = requested.to !== null && requested.to < end ? requested.to : end;
  // An empty period (a range before the survey started, say) stays empty rather than inverted.
  if (to < from) to = from;
  return { from, to };
}
