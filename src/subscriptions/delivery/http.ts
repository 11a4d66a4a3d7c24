/**
 * JSON POSTs for slack and webhook deliveries: bounded in time and size, refused for internal
 * addresses (core/outbound-address.ts), and a non-2xx answer is a failure.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressRefusal, checksAddressesOf, hostRefusal, maskUrl, type AllowedHosts } from '../core/index.js';
import { DeliveryConfigurationError } from './errors.js';

export const HTTP_TIMEOUT_MS = 10_000;
/** How much of an answer is read; the rest is cut off (only its status and first words matter). */
const MAX_ANSWER_BYTES = 64 * 1024;
const SHOWN_ANSWER_CHARS = 200;

/** A target the allow-list refuses: no retry can mend it, only the operator or the subscription's owner. */
export class RefusedTargetError extends DeliveryConfigurationError {}

/**
 * dns.lookup that refuses a name resolving to an internal address, checked on the addresses the
 * connection then uses, so a name cannot resolve one way when checked and another when dialled.
 */
function guardedLookup(allowed: AllowedHosts, url: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...(options as LookupOptions), all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.map((a) => addressRefusal(allowed, a.address)).find((r) => r !== null);
      if (refused) return callback(new RefusedTargetError(`${maskUrl(url)} is not allowed: ${refused}`), '', 0);
      if ((options as LookupOptions).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export async function postJson(url: string, body: unknown, allowed: AllowedHosts, timeoutMs = HTTP_TIMEOUT_MS): Promise<void> {
  const target = new URL(url);
  const refused = hostRefusal(allowed, target.hostname);
  if (refused) throw new RefusedTargetError(`${maskUrl(url)} is not allowed: ${refused}`);
  const payload = Buffer.from(JSON.stringify(body));
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          'user-agent': 'Hoglet-Subscriptions/1',
        },
        signal: AbortSignal.timeout(timeoutMs),
        ...(checksAddressesOf(allowed, target.hostname) ? { lookup: guardedLookup(allowed, url) } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        response.on('data', (chunk: Buffer) => {
          if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_ANSWER_BYTES) {
            response.destroy();
            done();
          }
        });
        response.on('end', done);
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
  if (status < 200 || status >= 300) {
    // The error is shown in the delivery log: the URL's secrets (Slack's token path) stay out.
    const shown = text.slice(0, SHOWN_ANSWER_CHARS);
    throw new Error(`${maskUrl(url)} answered ${status}${shown ? `: ${shown}` : ''}`);
  }
}
