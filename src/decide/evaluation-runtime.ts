/**
 * Which runtime a flags request comes from, so flags limited to the other one are left out
 * (PostHog's `evaluation_runtime`, spec posthog-flags.md §3.12): an explicit `evaluation_runtime`
 * in the body wins; else server SDKs and HTTP tools are recognised by their User-Agent, browsers
 * and mobile SDKs by theirs or by browser-only headers. Unknown callers get only flags meant for all.
 */
import type { IncomingHttpHeaders } from 'node:http';

export type EvaluationRuntime = 'client' | 'server';

const SERVER_AGENTS =
  /^(posthog-(python|node|ruby|php|go|java|dotnet|elixir|rust|server)|posthog\/|curl\/|wget\/|python-requests|python-urllib|aiohttp|httpx|node-fetch|axios|got|okhttp|go-http-client|java\/|apache-httpclient|ruby|guzzle)/i;
const CLIENT_AGENTS = /(mozilla\/|posthog-(js|android|ios|react-native|flutter)|dalvik|cfnetwork)/i;

export function requestRuntime(explicit: unknown, headers: IncomingHttpHeaders): EvaluationRuntime | null {
  if (explicit === 'client' || explicit === 'server') return explicit;
  const agent = typeof headers['user-agent'] === 'string' ? headers['user-agent'] : '';
  if (SERVER_AGENTS.test(agent)) return 'server';
  if (CLIENT_AGENTS.test(agent)) return 'client';
  if (headers.origin || headers.referer || headers['sec-fetch-mode'] || headers['sec-fetch-site']) return 'client';
  return null;
}

/** Whether a flag with this stored runtime is served to a request of `runtime`. */
export function servesRuntime(flagRuntime: string | null | undefined, runtime: EvaluationRuntime | null): boolean {
  if (!flagRuntime || flagRuntime === 'all') return true;
  return flagRuntime === runtime;
}
