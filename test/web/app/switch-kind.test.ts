/**
 * Switching an insight's type (switch-kind.ts): the events, filters, range, interval and breakdown
 * carry over; each type's own settings come back when the user returns to it.
 */
import { describe, expect, it } from 'vitest';
import type { FunnelsQuery, RetentionQuery, TrendsQuery } from '../../../web/src/api/insights.js';
import { switchedSource } from '../../../web/src/pages/insights/editor/switch-kind.js';

const trends: TrendsQuery = {
  kind: 'TrendsQuery',
  series: [
    { kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'dau' },
    {
      kind: 'EventsNode',
      event: 'signed up',
      name: 'signed up',
      math: 'total',
      properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }],
    },
  ],
  interval: 'week',
  dateRange: { date_from: '-30d', date_to: null },
  properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }],
  breakdownFilter: { breakdown: '$os', breakdown_type: 'event' },
  trendsFilter: { display: 'ActionsBar' },
};

describe('switchedSource', () => {
  it('takes a trends query to a funnel with its events as steps, its filters, range and breakdown, and no maths', () => {
    const funnel = switchedSource(trends, 'FunnelsQuery', undefined) as FunnelsQuery;
    expect(funnel.series).toEqual([
      { kind: 'EventsNode', event: '$pageview', name: '$pageview' },
      { kind: 'EventsNode', event: 'signed up', name: 'signed up', properties: trends.series[1]!.properties },
    ]);
    expect(funnel.properties).toEqual(trends.properties);
    expect(funnel.dateRange).toEqual(trends.dateRange);
    expect(funnel.breakdownFilter).toEqual(trends.breakdownFilter);
    expect(funnel.funnelsFilter?.funnelWindowInterval).toBe(14);
  });

  it('brings the trends query back whole after a round trip through a funnel', () => {
    const funnel = switchedSource(trends, 'FunnelsQuery', undefined);
    expect(switchedSource(funnel, 'TrendsQuery', trends)).toEqual(trends);
  });

  it('keeps a funnel step added meanwhile, with the default math', () => {
    const funnel = switchedSource(trends, 'FunnelsQuery', undefined) as FunnelsQuery;
    const longer = { ...funnel, series: [...funnel.series, { kind: 'EventsNode' as const, event: 'purchase', name: 'purchase' }] };
    const back = switchedSource(longer, 'TrendsQuery', trends) as TrendsQuery;
    expect(back.series.map((s) => [s.event, s.math])).toEqual([
      ['$pageview', 'dau'],
      ['signed up', 'total'],
      ['purchase', 'dau'],
    ]);
  });

  it('makes a single event a funnel of two steps and a lifecycle of the first series', () => {
    const one: TrendsQuery = { ...trends, series: [trends.series[1]!] };
    expect((switchedSource(one, 'FunnelsQuery', undefined) as FunnelsQuery).series.map((s) => s.event)).toEqual(['signed up', 'signed up']);
    const lifecycle = switchedSource(trends, 'LifecycleQuery', undefined);
    expect(lifecycle.kind === 'LifecycleQuery' && lifecycle.series.map((s) => s.event)).toEqual(['$pageview']);
    expect(lifecycle.kind === 'LifecycleQuery' && lifecycle.interval).toBe('week');
  });

  it('starts a retention from the first event, keeping its own periods, and goes back with its events', () => {
    const retention = switchedSource(trends, 'RetentionQuery', undefined) as RetentionQuery;
    expect(retention.retentionFilter.targetEntity).toEqual({ id: '$pageview', name: '$pageview', type: 'events' });
    expect(retention.retentionFilter.returningEntity).toEqual({ id: '$pageview', name: '$pageview', type: 'events' });
    expect(retention.dateRange).toBeUndefined();
    expect(retention.properties).toEqual(trends.properties);
    const purchases: RetentionQuery = {
      ...retention,
      retentionFilter: { ...retention.retentionFilter, targetEntity: { id: 'purchase', type: 'events' } },
    };
    const stickiness = switchedSource(purchases, 'StickinessQuery', undefined);
    expect(stickiness.kind === 'StickinessQuery' && stickiness.series.map((s) => [s.event, s.math])).toEqual([
      ['purchase', 'dau'],
      ['$pageview', 'dau'],
    ]);
    expect(stickiness.dateRange).toEqual({ date_from: '-7d', date_to: null });
  });
});
