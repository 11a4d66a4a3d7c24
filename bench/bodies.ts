/**
 * The request bodies of the capture and batch figures, shared by bench/run.ts, the single-figure
 * benches and bench/workload.ts (which queues the same events for the worker figure).
 */

/** A posthog-js-like single event. */
export function captureEvent(token: string) {
  return {
    api_key: token,
    event: '$pageview',
    distinct_id: 'bench-user',
    properties: { $current_url: 'https://example.com/', plan: 'pro' },
  };
}

/** A posthog-node-like batch of 100 events over 100 distinct ids, a tenth of them $identify. */
export function batchEvents(token: string) {
  const batch = Array.from({ length: 100 }, (_, i) => ({
    event: i % 10 === 0 ? '$identify' : 'bench event',
    properties: {
      distinct_id: `user-${i % 100}`,
      n: i,
      $set: { plan: i % 2 ? 'pro' : 'free' },
      $current_url: 'https://example.com/pricing',
    },
  }));
  return { api_key: token, batch };
}

export const captureBody = (token: string): string => JSON.stringify(captureEvent(token));
export const batchBody = (token: string): string => JSON.stringify(batchEvents(token));

/** The bare server gets a token of the same length, so both read bodies of the same size. */
export const sameLengthToken = (token: string): string => `phc_${'x'.repeat(Math.max(0, token.length - 4))}`;
