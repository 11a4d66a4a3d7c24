import type { TestServer } from '../helpers/server.js';

export const env = (server: TestServer, teamId = server.bootstrap.team.id) => `/api/environments/${teamId}`;

export const TRENDS_QUERY = {
  kind: 'InsightVizNode',
  source: {
    kind: 'TrendsQuery',
    series: [{ kind: 'EventsNode', event: 'order placed', name: 'order placed', math: 'total' }],
    interval: 'day',
    dateRange: { date_from: '-7d' },
  },
};

export async function createInsight(server: TestServer, body: Record<string, unknown> = {}, teamId?: number) {
  const res = await server.request(`${env(server, teamId)}/insights/`, {
    method: 'POST',
    body: { name: 'Orders', query: TRENDS_QUERY, ...body },
  });
  if (res.status !== 201) throw new Error(`insight create failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function createDashboard(server: TestServer, body: Record<string, unknown> = {}, teamId?: number) {
  const res = await server.request(`${env(server, teamId)}/dashboards/`, { method: 'POST', body: { name: 'KPIs', ...body } });
  if (res.status !== 201) throw new Error(`dashboard create failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Sets an environment's slack incoming webhook directly in storage. */
export async function setSlackWebhook(server: TestServer, url: string | null, teamId = server.bootstrap.team.id) {
  const { db } = server.running.ctx.database;
  const row = await db.selectFrom('teams').select('settings').where('id', '=', teamId).executeTakeFirstOrThrow();
  const settings = typeof row.settings === 'string' ? JSON.parse(row.settings) : row.settings;
  settings.slack_incoming_webhook = url;
  await db
    .updateTable('teams')
    .set({ settings: JSON.stringify(settings) })
    .where('id', '=', teamId)
    .execute();
  await server.running.ctx.teams.invalidate(teamId).catch(() => undefined);
}
