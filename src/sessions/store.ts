import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, raw } from '../platform/analytics/sql.js';
import { SESSION_ENTRY_PROPERTIES } from '../events/sessions-table.js';

/** A session property with stored values, from a session's merged states (the `sessions` table). */
function valueExpression(key: string): string | undefined {
  switch (key) {
    case '$entry_current_url':
      return 'argMinMerge(entry_url)';
    case '$end_current_url':
      return 'argMaxMerge(exit_url)';
    // PostHog's `path()` of the entry and end URLs, not the `$pathname` sent.
    case '$entry_pathname':
      return 'path(argMinMerge(entry_url))';
    case '$end_pathname':
      return 'path(argMaxMerge(exit_url))';
    case '$last_external_click_url':
      return 'argMaxMerge(last_external_click_url)';
  }
  const column = key.slice(1);
  return key.startsWith('$entry_') && Object.hasOwn(SESSION_ENTRY_PROPERTIES, column) ? `argMinMerge(\`${column}\`)` : undefined;
}

/**
 * The most frequent non-empty values of a session property among the environment's latest
 * `sample` sessions (by start), those containing `search` case-insensitively only, most frequent
 * first, then alphabetically; none for a property without stored values.
 */
export async function topSessionValues(
  analytics: AnalyticsEngine,
  teamId: number,
  query: { key: string; search: string; sample: number; limit: number },
): Promise<string[]> {
  const expression = valueExpression(query.key);
  if (expression === undefined) return [];
  const { sql, params } = ch`SELECT value, count() AS n FROM (
      SELECT session_id, min(min_timestamp) AS start, ${raw(expression)} AS value
      FROM ${raw(analytics.table('sessions'))}
      WHERE team_id = ${teamId}
      GROUP BY session_id
      ORDER BY start DESC
      LIMIT ${query.sample}
    )
    WHERE value IS NOT NULL AND value != '' AND positionCaseInsensitiveUTF8(value, ${query.search}) > 0
    GROUP BY value
    ORDER BY n DESC, value
    LIMIT ${query.limit}`.compile();
  const rows = await analytics.query<{ value: string }>(sql, params);
  return rows.map((row) => row.value);
}
