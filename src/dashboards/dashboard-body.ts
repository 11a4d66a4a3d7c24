/**
 * The parts of a dashboard PATCH beyond its plain fields, read without touching storage: the
 * dashboard-wide `filters` and the `tiles` changes (PostHog's DashboardSerializer), and how the
 * filters' date range overrides a tile's query (PostHog's Insight.get_effective_query with the
 * dashboard's filters).
 */
import { isJsonObject } from '../lib/json-object.js';
import { DRF_MESSAGES } from '../posthog/drf-fields.js';
import { validationError } from '../posthog/errors.js';
import { parseTrendsDate } from '../insights/trends-window.js';
import type { DashboardFilters, TileChange } from './store.js';

function readDate(value: unknown, attr: string): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || parseTrendsDate(value, new Date()) === null) {
    throw validationError(`Unreadable date "${String(value)}".`, attr);
  }
  return value;
}

/** `filters`: an object (PostHog: "Filters must be a dictionary"); its dates readable as insights' are. */
export function readDashboardFilters(raw: unknown): DashboardFilters {
  if (!isJsonObject(raw)) throw validationError('Filters must be a dictionary', 'filters');
  const filters: DashboardFilters = { ...raw };
  if ('date_from' in raw) filters.date_from = readDate(raw.date_from, 'filters');
  if ('date_to' in raw) filters.date_to = readDate(raw.date_to, 'filters');
  return filters;
}

/** `tiles`: a list of `{id, layouts?, color?, deleted?}`; other keys (insight, text…) are ignored. */
export function readTileChanges(raw: unknown): TileChange[] {
  if (!Array.isArray(raw)) throw validationError(DRF_MESSAGES.notAList(raw), 'tiles', 'not_a_list');
  return raw.map((tile: unknown, i) => {
    if (!isJsonObject(tile)) throw validationError('Each tile must be an object.', `tiles__${i}`);
    if (!Number.isSafeInteger(tile.id)) throw validationError('A valid integer is required.', `tiles__${i}__id`);
    const change: TileChange = { id: tile.id as number };
    if ('layouts' in tile) {
      if (!isJsonObject(tile.layouts)) throw validationError('Layouts must be a dictionary.', `tiles__${i}__layouts`);
      change.layouts = tile.layouts;
    }
    if ('color' in tile) {
      if (tile.color !== null && typeof tile.color !== 'string') throw validationError('Not a valid string.', `tiles__${i}__color`);
      change.color = tile.color;
    }
    if ('deleted' in tile) {
      if (typeof tile.deleted !== 'boolean') throw validationError('Must be a valid boolean.', `tiles__${i}__deleted`);
      change.deleted = tile.deleted;
    }
    return change;
  });
}

/**
 * The query a tile runs on its dashboard: with the dashboard's date range in place of its own when
 * the dashboard sets one (date_to null then means "until now"), unchanged otherwise.
 */
export function applyDashboardFilters(query: unknown, filters: DashboardFilters): unknown {
  if (!filters.date_from && !filters.date_to) return query;
  const dateRange = { date_from: filters.date_from ?? null, date_to: filters.date_to ?? null };
  if (!isJsonObject(query)) return query;
  if (query.kind === 'InsightVizNode' && isJsonObject(query.source)) {
    return {
      ...query,
      source: { ...query.source, dateRange: { ...(isJsonObject(query.source.dateRange) ? query.source.dateRange : {}), ...dateRange } },
    };
  }
  return { ...query, dateRange: { ...(isJsonObject(query.dateRange) ? query.dateRange : {}), ...dateRange } };
}
