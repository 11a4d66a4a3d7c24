/**
 * An insight's chart, for the insight page and dashboard tiles alike: runs the query (React Query,
 * keyed by environment and query, with the date override in it) and draws what its display asks
 * for: trends as a line, bars, a number or a table; funnels as steps or time to convert; retention
 * as its table; lifecycle as stacked bars; stickiness as bars.
 */
import { useMemo } from 'react';
import { sourceOf, withDateRange, type InsightSource, type InsightVizNode } from '../../../api/insights';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { FunnelViz } from './FunnelViz';
import { RetentionViz } from './RetentionViz';
import { LifecycleViz } from './LifecycleViz';
import { StickinessViz } from './StickinessViz';
import { TrendsViz } from './TrendsViz';

export interface InsightVizProps {
  environmentId: number;
  /** The insight's query: its InsightVizNode, or the TrendsQuery / FunnelsQuery itself. */
  query: InsightVizNode | InsightSource;
  /** A dashboard's date filter, over the insight's own range when given. */
  dateRange?: { date_from: string | null; date_to: string | null } | null;
  height?: number;
  /** The insight page's extras (the funnel's conversion table). */
  detailed?: boolean;
}

export function InsightViz({ environmentId, query, dateRange = null, height = 300, detailed = false }: InsightVizProps) {
  const source = useMemo(() => {
    const found = sourceOf(query);
    return found ? withDateRange(found, dateRange) : null;
  }, [query, dateRange]);
  if (source?.kind === 'TrendsQuery') return <TrendsViz environmentId={environmentId} source={source} height={height} />;
  if (source?.kind === 'LifecycleQuery') return <LifecycleViz environmentId={environmentId} source={source} height={height} />;
  if (source?.kind === 'StickinessQuery') return <StickinessViz environmentId={environmentId} source={source} height={height} />;
  if (source?.kind === 'RetentionQuery') return <RetentionViz environmentId={environmentId} source={source} height={height} />;
  if (source?.kind === 'FunnelsQuery')
    return <FunnelViz environmentId={environmentId} source={source} height={height} detailed={detailed} />;
  return (
    <ErrorAlert message="This insight's query cannot be shown: only trends, funnels, retention, lifecycle and stickiness are supported." />
  );
}
