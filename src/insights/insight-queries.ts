/**
 * The insight queries an insight may hold, by kind: the reader that checks each (throwing a
 * TrendsQueryError that names the field), so a saved insight is one its chart can run.
 */
import { isJsonObject } from '../lib/json-object.js';
import { readFunnelsQuery } from './funnels.js';
import { TrendsQueryError } from './query-error.js';
import { readLifecycleQuery } from './lifecycle.js';
import { readRetentionQuery } from './retention.js';
import { readStickinessQuery } from './stickiness.js';
import { readTrendsQuery } from './trends.js';

/** A reader of the bare query, its errors named under the InsightVizNode's `source` when wrapped. */
function unwrapped(read: (source: Record<string, unknown>) => unknown): (query: unknown) => unknown {
  return (query) => {
    const wrapped = isJsonObject(query) && query.kind === 'InsightVizNode';
    const source = wrapped ? query.source : query;
    try {
      return read(isJsonObject(source) ? source : {});
    } catch (error) {
      if (wrapped && error instanceof TrendsQueryError)
        throw new TrendsQueryError(error.message, error.attr.replace(/^query__/, 'query__source__'));
      throw error;
    }
  };
}

const READERS: Record<string, (query: unknown) => unknown> = {
  TrendsQuery: readTrendsQuery,
  FunnelsQuery: readFunnelsQuery,
  RetentionQuery: readRetentionQuery,
  LifecycleQuery: readLifecycleQuery,
  StickinessQuery: unwrapped(readStickinessQuery),
};

/** The kind of an insight's query: its InsightVizNode's source's, or its own. */
export function insightKind(query: unknown): unknown {
  const source = isJsonObject(query) && query.kind === 'InsightVizNode' ? query.source : query;
  return isJsonObject(source) ? source.kind : undefined;
}

/** Checks an insight's query (an InsightVizNode or the query itself) with the reader of its kind. */
export function readInsightQuery(query: unknown): void {
  const kind = insightKind(query);
  const reader = typeof kind === 'string' && Object.hasOwn(READERS, kind) ? READERS[kind]! : null;
  if (reader) {
    reader(query);
    return;
  }
  const wrapped = isJsonObject(query) && query.kind === 'InsightVizNode';
  throw new TrendsQueryError(
    `Insights of kind ${JSON.stringify(kind ?? null)} are not supported; supported: ${Object.keys(READERS).join(', ')}.`,
    wrapped ? 'query__source__kind' : 'query__kind',
  );
}
