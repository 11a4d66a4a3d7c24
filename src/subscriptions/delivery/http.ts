/** JSON POSTs for slack and webhook deliveries: bounded in time, and a non-2xx answer is a failure. */
import { maskUrl } from '../core/targets.js';

export const HTTP_TIMEOUT_MS = 10_000;

export async function postJson(url: string, body: unknown, timeoutMs = HTTP_TIMEOUT_MS): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'Hoglet-Subscriptions/1' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
    redirect: 'manual',
  });
  // Drain the body so the connection can be reused; only its status matters.
  const text = await response.text().catch(() => '');
  if (response.status < 200 || response.status >= 300) {
    // The error is shown in the delivery log: the URL's secrets (Slack's token path) stay out.
    throw new Error(`${maskUrl(url)} answered ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
  }
}
