/**
 * The prepare thread's entry (see PrepareThread): prepares batches of queue rows (prepare.ts)
 * posted by the worker, while the worker writes the batch before them. A batch it cannot handle
 * (say, properties too large for one string) is prepared by the worker.
 */
import { workerData } from 'node:worker_threads';
import { geoipFromShared, type SharedGeoip } from '../../geoip/geoip-service.js';
import { answerQuestions } from '../../platform/request-thread.js';
import { prepareRow, ReceiptClock } from './prepare.js';
import { packReply, type PackedRows, type PrepareRequest } from './prepare-messages.js';
import { SentDefinitions } from '../../definitions/core/property-types.js';

const shared = (workerData as { geoip?: SharedGeoip } | null)?.geoip;
const geoip = shared ? geoipFromShared(shared) : undefined;
const sent = new SentDefinitions();

answerQuestions<PrepareRequest, PackedRows>((request) => {
  const anonymized = new Set(request.anonymized);
  const clock = new ReceiptClock();
  const clockMs = Date.now();
  const prepared = request.rows.map(([teamId, payload]) =>
    prepareRow(payload, { geoip, anonymizeIps: anonymized.has(teamId), clock, definitions: { sent, teamId, clockMs } }),
  );
  const reply = packReply(prepared);
  return { answer: reply, transfer: [reply.ends.buffer as ArrayBuffer] };
});
