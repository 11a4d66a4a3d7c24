/**
 * The query an insight becomes when its type is switched, as PostHog's insight type tabs do it: the
 * events and filters the user picked carry over, and what only one type has (a series' math, a
 * trends display, a funnel's window) is the one that type last had in this editor, else its default.
 */
import type { EventsNode, InsightSource, RetentionEntity } from '../../../api/insights';
import { newFunnel, newLifecycle, newRetention, newStickiness, newTrends } from './query-defaults';

export type InsightKind = InsightSource['kind'];

const NEW_QUERIES: Record<InsightKind, () => InsightSource> = {
  TrendsQuery: newTrends,
  FunnelsQuery: newFunnel,
  RetentionQuery: newRetention,
  LifecycleQuery: newLifecycle,
  StickinessQuery: newStickiness,
};

/** The events a query is about, in order: its series, or a retention's start and return events. */
function eventsOf(source: InsightSource): EventsNode[] {
  if (source.kind !== 'RetentionQuery') return source.series;
  const { targetEntity, returningEntity } = source.retentionFilter;
  const node = (entity: RetentionEntity | undefined): EventsNode[] =>
    entity ? [{ kind: 'EventsNode', event: entity.id, ...(entity.name ? { name: entity.name } : {}) }] : [];
  const [target, returning] = [node(targetEntity), node(returningEntity)];
  return target[0] && returning[0] && target[0].event === returning[0].event ? target : [...target, ...returning];
}

/** A series of the new type for `event`: its fields of the type's own (the math) kept from `before` when it was the same event. */
function seriesNode(event: EventsNode, before: EventsNode | undefined, fallback: EventsNode): EventsNode {
  const { kind, event: name, name: label, custom_name, properties } = event;
  const own = before && before.event === event.event ? before : fallback;
  const { math, math_property } = own;
  return {
    kind,
    event: name,
    ...(label !== undefined ? { name: label } : {}),
    ...(custom_name !== undefined ? { custom_name } : {}),
    ...(properties !== undefined ? { properties } : {}),
    ...(math !== undefined ? { math } : {}),
    ...(math_property !== undefined ? { math_property } : {}),
  };
}

function withEvents(next: InsightSource, events: EventsNode[]): InsightSource {
  if (events.length === 0) return next;
  if (next.kind === 'RetentionQuery') {
    const entity = (node: EventsNode): RetentionEntity => ({ id: node.event, ...(node.name ? { name: node.name } : {}), type: 'events' });
    return { ...next, retentionFilter: { ...next.retentionFilter, targetEntity: entity(events[0]!), returningEntity: entity(events[0]!) } };
  }
  const fallback = next.series[0]!;
  const picked = next.kind === 'LifecycleQuery' ? events.slice(0, 1) : events;
  let series = picked.map((event, i) => seriesNode(event, next.series[i], fallback));
  // A funnel needs two steps: a single event is its first step and its last.
  if (next.kind === 'FunnelsQuery' && series.length === 1) series = [series[0]!, series[0]!];
  return { ...next, series } as InsightSource;
}

/**
 * `from` switched to `kind`. `earlier` is the query of that kind this editor last showed, if any:
 * its own settings come back; the events, filters, date range (not a retention's: its periods),
 * interval and breakdown come from `from` where both types have them.
 */
export function switchedSource(from: InsightSource, kind: InsightKind, earlier: InsightSource | undefined): InsightSource {
  if (kind === from.kind) return from;
  let next = withEvents(earlier?.kind === kind ? earlier : NEW_QUERIES[kind](), eventsOf(from));
  if (from.properties !== undefined) next = { ...next, properties: from.properties };
  if (from.kind !== 'RetentionQuery' && kind !== 'RetentionQuery' && from.dateRange !== undefined)
    next = { ...next, dateRange: from.dateRange };
  if ('interval' in next && from.kind !== 'RetentionQuery' && from.interval !== undefined) next = { ...next, interval: from.interval };
  if ((kind === 'TrendsQuery' || kind === 'FunnelsQuery') && (from.kind === 'TrendsQuery' || from.kind === 'FunnelsQuery'))
    next = { ...next, breakdownFilter: from.breakdownFilter } as InsightSource;
  return next;
}
