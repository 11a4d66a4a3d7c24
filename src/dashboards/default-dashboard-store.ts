/**
 * The dashboard a new environment starts with, made its `primary_dashboard`, as PostHog's
 * Team.objects.create_with_data does (posthog/models/team/team.py, through
 * posthog/helpers/signup_dashboard_experiment.py `create_signup_primary_dashboard`): "My App
 * Dashboard", pinned, filled from the legacy "Product analytics" template
 * (products/dashboards/backend/models/dashboard_templates.py `legacy_signup_template`, the
 * DEFAULT_APP template of older versions). Hoglet's insights are trends, so it carries the
 * template's trends tiles: daily and weekly active users (over `$pageview`, as the older
 * DEFAULT_APP counted them) and referring domains; retention, lifecycle and funnel tiles are left
 * out. Like PostHog's, they have no creator.
 */
import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { nowIso, toJson } from '../platform/db/values.js';
import { generateShortId } from '../insights/store.js';

type Db = Kysely<Schema>;

export const DEFAULT_DASHBOARD_NAME = 'My App Dashboard';
const DEFAULT_DASHBOARD_DESCRIPTION =
  'A starter view of how people use your app: how many visit, whether they come back, where traffic comes from, and how they move through your pages.';

const TRENDS_FILTER = {
  showLegend: false,
  yAxisScaleType: 'linear',
  showValuesOnSeries: false,
  smoothingIntervals: 1,
  showPercentStackView: false,
  aggregationAxisFormat: 'numeric',
  showAlertThresholdLines: false,
};

function pageviewTrends(options: { interval: string; dateFrom: string; display: string; breakdown?: string }) {
  return {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'dau' }],
      interval: options.interval,
      dateRange: { date_from: options.dateFrom, explicitDate: false },
      properties: [],
      trendsFilter: { display: options.display, ...TRENDS_FILTER },
      breakdownFilter: options.breakdown ? { breakdown: options.breakdown, breakdown_type: 'event' } : { breakdown_type: 'event' },
      filterTestAccounts: false,
    },
  };
}

const layout = (x: number, y: number, xsY: number) => ({
  sm: { h: 5, w: 6, x, y, minH: 5, minW: 3 },
  xs: { h: 5, w: 1, x: 0, y: xsY, minH: 5, minW: 3 },
});

const TILES = [
  {
    name: 'Daily active users (DAUs)',
    description: 'Shows the number of unique users that use your app every day.',
    color: 'blue',
    query: pageviewTrends({ interval: 'day', dateFrom: '-30d', display: 'ActionsLineGraph' }),
    layouts: layout(0, 0, 0),
  },
  {
    name: 'Weekly active users (WAUs)',
    description: 'Shows the number of unique users that use your app every week.',
    color: 'green',
    query: pageviewTrends({ interval: 'week', dateFrom: '-90d', display: 'ActionsLineGraph' }),
    layouts: layout(6, 0, 5),
  },
  {
    name: 'Referring domain (last 14 days)',
    description: 'Shows the most common referring domains for your users over the past 14 days. Pageviews only.',
    color: 'black',
    query: pageviewTrends({ interval: 'day', dateFrom: '-14d', display: 'ActionsBarValue', breakdown: '$referring_domain' }),
    layouts: layout(0, 5, 10),
  },
];

/**
 * Creates the default dashboard inside the caller's transaction and returns its id; the caller
 * makes it the environment's `primary_dashboard`.
 */
export async function createPrimaryDashboard(trx: Db, teamId: number): Promise<number> {
  const now = nowIso();
  const dashboard = await trx
    .insertInto('dashboards')
    .values({
      team_id: teamId,
      name: DEFAULT_DASHBOARD_NAME,
      description: DEFAULT_DASHBOARD_DESCRIPTION,
      pinned: true,
      tags: toJson([]),
      deleted: false,
      created_by_id: null,
      created_at: now,
      last_modified_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const tile of TILES) {
    const insight = await trx
      .insertInto('insights')
      .values({
        team_id: teamId,
        short_id: generateShortId(),
        name: tile.name,
        description: tile.description,
        query: toJson(tile.query),
        tags: toJson([]),
        favorited: false,
        deleted: false,
        created_by_id: null,
        last_modified_by_id: null,
        created_at: now,
        last_modified_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('dashboard_tiles')
      .values({
        dashboard_id: dashboard.id,
        insight_id: insight.id,
        layouts: toJson(tile.layouts),
        color: tile.color,
        deleted: false,
        created_at: now,
      })
      .execute();
  }
  return Number(dashboard.id);
}
