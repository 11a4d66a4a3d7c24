/**
 * Which runtime a flags request comes from, so flags limited to another one are left out
 * (PostHog's `evaluation_runtime`; docs/posthog-parity.md), decided exactly as PostHog's flags
 * service decides it (rust/feature-flags/src/handler/flags.rs detect_evaluation_runtime_from_request,
 * utils/user_agent.rs UserAgentInfo::parse), so a flag reaches the same SDKs from Hoglet:
 *
 * 1. a string `evaluation_runtime` in the body, any case: `client`, `server`, else `all` (every flag);
 * 2. else the User-Agent: `posthog-<sdk>/<version>` by SDK (an unknown SDK says nothing, and no
 *    browser word after it counts); else a browser word anywhere (`Mozilla/`, `Chrome/`, `Safari/`,
 *    `Firefox/`, `Edge/`) is a client; else `python-requests/` or `curl/` anywhere is a server;
 * 3. else a browser-only header (Origin, Referer, Sec-Fetch-Mode, Sec-Fetch-Site), even empty, is a client;
 * 4. else unknown (null): only flags for every runtime are served.
 *
 * Matching is case-sensitive, as there. A User-Agent with a byte outside visible ASCII (and tab)
 * is no User-Agent there (the header value is not a string to its HTTP library), so neither here.
 */
import type { IncomingHttpHeaders } from 'node:http';

export type EvaluationRuntime = 'all' | 'client' | 'server';

const SERVER_SDKS = new Set(['python', 'ruby', 'php', 'java', 'go', 'node', 'dotnet', 'elixir', 'rs', 'server']);
const CLIENT_SDKS = new Set(['js', 'android', 'ios', 'react-native', 'flutter']);
const BROWSER_WORDS = ['Mozilla/', 'Chrome/', 'Safari/', 'Firefox/', 'Edge/'];
const NOT_VISIBLE_ASCII = /[^\t\x20-\x7e]/;

/** A runtime as PostHog reads a name: `client`, `server` in any case, anything else `all`. */
export function runtimeNamed(name: string): EvaluationRuntime {
  const lower = name.toLowerCase();
  return lower === 'client' || lower === 'server' ? lower : 'all';
}

/** The runtime a User-Agent names, or null when it names none. */
export function userAgentRuntime(agent: string | undefined): EvaluationRuntime | null {
  if (!agent || NOT_VISIBLE_ASCII.test(agent)) return null;
  if (agent.startsWith('posthog-')) {
    const rest = agent.slice('posthog-'.length);
    const slash = rest.indexOf('/');
    if (slash === -1) return null;
    const name = rest.slice(0, slash);
    const versionPart = rest.slice(slash + 1);
    // The version is the first word after the slash (or the whole remainder when it is all blank).
    const version = versionPart.trim().split(/\s+/)[0] || versionPart;
    if (name === '' || version === '') return null;
    return SERVER_SDKS.has(name) ? 'server' : CLIENT_SDKS.has(name) ? 'client' : null;
  }
  if (BROWSER_WORDS.some((word) => agent.includes(word))) return 'client';
  if (agent.includes('python-requests/') || agent.includes('curl/')) return 'server';
  return null;
}

export function requestRuntime(explicit: unknown, headers: IncomingHttpHeaders): EvaluationRuntime | null {
  if (typeof explicit === 'string') return runtimeNamed(explicit);
  const byAgent = userAgentRuntime(headers['user-agent']);
  if (byAgent) return byAgent;
  const browserOnly =
    headers.origin !== undefined ||
    headers.referer !== undefined ||
    headers['sec-fetch-mode'] !== undefined ||
    headers['sec-fetch-site'] !== undefined;
  return browserOnly ? 'client' : null;
}

/**
 * Whether a flag with this stored runtime is served to a request of `runtime` (handler/flags.rs):
 * a flag for every runtime (none, `all`, or a name that is neither `client` nor `server`) always;
 * a client or server flag to a request of that runtime or of `all`, never to an unknown one.
 */
export function servesRuntime(flagRuntime: string | null | undefined, runtime: EvaluationRuntime | null): boolean {
  if (runtime === 'all' || !flagRuntime) return true;
  const own = runtimeNamed(flagRuntime);
  return own === 'all' || own === runtime;
}
