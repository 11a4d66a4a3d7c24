/**
 * The load of the PostgreSQL bench's worker rounds: a realistic stream (bench/workload.ts) as
 * posthog-node batches it, and its POSTs to /batch/ (which the other benches that load events share).
 */
import { realisticWorkload } from './workload.js';

/** A realistic stream (bench/workload.ts) as posthog-node sends it: batches of 100, distinct ids under `prefix`. */
export function posthogNodeBatches(token: string, events: number, prefix: string): string[] {
  const rows = realisticWorkload(0, events);
  const bodies: string[] = [];
  for (let i = 0; i < rows.length; i += 100) {
    const batch = rows.slice(i, i + 100).map(({ payload }) => {
      const properties: Record<string, unknown> = {
        ...(payload.properties as Record<string, unknown>),
        $lib: 'posthog-node',
        $lib_version: '4.18.0',
      };
      // Each round's persons and groups are new ones: every round does the same work.
      if (typeof properties.$anon_distinct_id === 'string') properties.$anon_distinct_id = `${prefix}${properties.$anon_distinct_id}`;
      if (typeof properties.$group_key === 'string') properties.$group_key = `${prefix}${properties.$group_key}`;
      const groups = properties.$groups as Record<string, string> | undefined;
      if (groups) properties.$groups = Object.fromEntries(Object.entries(groups).map(([type, key]) => [type, `${prefix}${key}`]));
      return {
        type: 'capture',
        event: payload.event,
        distinct_id: `${prefix}${payload.distinct_id}`,
        properties,
        timestamp: payload.timestamp,
        uuid: payload.uuid,
        library: 'posthog-node',
        library_version: '4.18.0',
      };
    });
    bodies.push(JSON.stringify({ api_key: token, batch }));
  }
  return bodies;
}

/**
 * POSTs `body` to /batch/ and fails unless it is answered 200; sent again when the connection was
 * closed under it (an idle keep-alive connection the server timed out).
 */
export async function postBatch(url: string, body: string, attempts = 3): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  } catch (error) {
    // A repeat stores nothing twice: the benches' events carry their uuids.
    if (attempts <= 1) throw error;
    return postBatch(url, body, attempts - 1);
  }
  if (response.status !== 200) throw new Error(`/batch/ answered ${response.status}: ${await response.text()}`);
}

/** Sends `bodies` to /batch/, a few at a time, each answered 200. */
export async function sendBatches(url: string, bodies: readonly string[]): Promise<void> {
  let next = 0;
  const sender = async () => {
    while (next < bodies.length) {
      await postBatch(url, bodies[next++]!);
    }
  };
  await Promise.all(Array.from({ length: 4 }, sender));
}
