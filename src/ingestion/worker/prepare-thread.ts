/**
 * The prepare thread's entry (see PrepareThread): prepares batches of queue rows (prepare.ts)
 * posted by the worker, while the worker writes the batch before them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { geoipFromShared, type SharedGeoip } from '../../geoip/geoip-service.js';
import { prepareRow, ReceiptClock } from './prepare.js';
import { packReply, type PrepareFailure, type PrepareRequest } from './prepare-messages.js';

const shared = (workerData as { geoip?: SharedGeoip } | null)?.geoip;
const geoip = shared ? geoipFromShared(shared) : undefined;

parentPort!.on('message', (request: PrepareRequest) => {
  try {
    const anonymized = new Set(request.anonymized);
    const clock = new ReceiptClock();
    const prepared = request.rows.map(([teamId, payload]) => prepareRow(payload, { geoip, anonymizeIps: anonymized.has(teamId), clock }));
    const reply = packReply(request.id, prepared);
    parentPort!.postMessage(reply, [reply.ends.buffer as ArrayBuffer]);
  } catch (error) {
    // One batch this thread cannot handle (say, properties too large for one string) is prepared
    // by the worker; the thread stays up for the next.
    parentPort!.postMessage({ id: request.id, error: String(error) } satisfies PrepareFailure);
  }
});
