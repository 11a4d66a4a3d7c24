/**
 * Sessions: the per-session property values computed from events (sessions table v3 semantics).
 * The definitions PostHog lists are in session-property-definitions.ts, `sessions/values/` in
 * session-values.ts.
 *
 * Session values follow PostHog's `raw_sessions` v3 aggregation:
 * - `$start_timestamp` / `$end_timestamp`: min / max event timestamp; `$session_duration`:
 *   `dateDiff('second', start, end)` (second boundaries crossed);
 * - entry and end values are pageview-prioritised: a `$pageview`'s or `$screen`'s value wins over
 *   another event's, as if the other were a year later (earlier, for end values);
 * - `$entry_current_url`: `$current_url` of the first event (so prioritised) that has a non-empty one;
 *   `$end_current_url`: of the last; pathname / hostname are ClickHouse `path()` / `domain()` of those;
 * - `$entry_referring_domain`, `$entry_utm_*`, `$entry_<click id>`: each the first non-empty value of
 *   the event property (`$referring_domain`, `utm_source`, `gclid`...), independently of each other;
 * - `$pageview_count` / `$autocapture_count` / `$screen_count`: distinct event uuids of that event name;
 * - `$is_bounce` (PostHog's default mode, `count_pageviews`, 10 s threshold; as web analytics reads it,
 *   events/sessions-table.ts): null when the session has no `$pageview`; otherwise true unless it has more
 *   than one pageview, an autocapture, or lasted at least 10 seconds;
 * - `$last_external_click_url`: latest non-empty `$external_click_url`; `$vitals_lcp`: earliest numeric
 *   `$web_vitals_LCP_value`;
 * - `$channel_type`: see `posthog/channel-type.ts`, from the first event's attribution taken together
 *   (utm source, medium, campaign, referring domain, gclid, fbclid, gad_source: empty ones too, as
 *   PostHog's `entry_channel_type_properties`), and the entry URL for custom rules.
 */
import { channelType, type CustomChannelRule } from '../../posthog/channel-type.js';
import { SESSION_CLICK_IDS, SESSION_UTM_PARAMS } from './session-property-definitions.js';
import { isJsonObject } from '../../lib/json-object.js';

/** An ingested event as the session computation needs it. */
export interface SessionEventInput {
  event: string;
  /** ISO string, epoch milliseconds or Date. */
  timestamp: string | number | Date;
  uuid?: string;
  properties: Record<string, unknown>;
}

/** Session property values; absent values are null (as PostHog's nullable columns). */
export interface SessionProperties {
  $session_id: string;
  $start_timestamp: string;
  $end_timestamp: string;
  $entry_current_url: string | null;
  $entry_pathname: string | null;
  $entry_hostname: string | null;
  $end_current_url: string | null;
  $end_pathname: string | null;
  $end_hostname: string | null;
  $entry_referring_domain: string | null;
  $pageview_count: number;
  $autocapture_count: number;
  $screen_count: number;
  $channel_type: string;
  $session_duration: number;
  $is_bounce: boolean | null;
  $last_external_click_url: string | null;
  $vitals_lcp: number | null;
  /** `$entry_utm_*` and `$entry_<click id>` values. */
  [key: `$entry_${string}`]: string | null;
}

/** ClickHouse `domain(url)`: the host without port; works with or without a scheme. `''` when none. */
export function urlDomain(url: string): string {
  const rest = afterScheme(url);
  if (rest === undefined) return '';
  const authority = rest.split(/[/?#]/)[0] ?? '';
  return authority.replace(/^.*@/, '').replace(/:\d*$/, '');
}

/** ClickHouse `path(url)`: the path without query string and fragment. `''` when none. */
export function urlPath(url: string): string {
  const rest = afterScheme(url);
  if (rest === undefined) {
    if (url.startsWith('/')) return url.split(/[?#]/)[0] ?? '';
    return '';
  }
  const slash = rest.search(/[/?#]/);
  if (slash < 0 || rest[slash] !== '/') return '';
  return rest.slice(slash).split(/[?#]/)[0] ?? '';
}

function afterScheme(url: string): string | undefined {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url);
  if (m) return url.slice(m[0].length);
  if (url.startsWith('//')) return url.slice(2);
  // Scheme-less "example.com/path": treat the first segment as a host when it looks like one.
  if (/^[^/?#\s]+\.[^/?#\s]+/.test(url) && !url.startsWith('/')) return url;
  return undefined;
}

function toMillis(ts: string | number | Date): number {
  if (ts instanceof Date) return ts.getTime();
  if (typeof ts === 'number') return ts;
  return Date.parse(ts);
}

/** `nullIf(toString(x), '')` of a property value. */
function stringValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else text = JSON.stringify(value);
  return text === '' ? null : text;
}

function numberValue(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** ClickHouse's `addYears` in UTC: a 29 February lands on the 28th (JavaScript would roll over to March). */
function addYears(ms: number, years: number): number {
  const date = new Date(ms);
  const month = date.getUTCMonth();
  date.setUTCFullYear(date.getUTCFullYear() + years);
  if (date.getUTCMonth() !== month) date.setUTCDate(0);
  return date.getTime();
}

/** The raw_sessions v3 time of an event's entry value: a pageview's or screen's wins over other events'. */
function entryTime(event: string, ts: number): number {
  return event === '$pageview' || event === '$screen' ? ts : addYears(ts, 1);
}

/** Its end value's: a pageview's or screen's wins over other events'. */
function exitTime(event: string, ts: number): number {
  return event === '$pageview' || event === '$screen' ? ts : addYears(ts, -1);
}

/** The channel type's inputs of one event, together (PostHog's `entry_channel_type_properties`). */
interface ChannelTuple {
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  referringDomain: string | null;
  hasGclid: boolean;
  hasFbclid: boolean;
  gadSource: string | null;
}

/**
 * A running argMin / argMax over (timestamp, value); ties keep the first value for min, the last for
 * max. A null value is skipped, as ClickHouse's argMin over a Nullable skips NULLs; a tuple is never null.
 */
class Extreme<T> {
  private ts: number | null = null;
  value: T | null = null;
  constructor(private readonly kind: 'min' | 'max') {}
  offer(ts: number, value: T | null): void {
    if (value === null) return;
    if (this.ts === null || (this.kind === 'min' ? ts < this.ts : ts >= this.ts)) {
      this.ts = ts;
      this.value = value;
    }
  }
}

/** Accumulator for one session; feed events in any order with {@link SessionAccumulator.add}. */
export class SessionAccumulator {
  private start = Number.POSITIVE_INFINITY;
  private end = Number.NEGATIVE_INFINITY;
  private readonly entryUrl = new Extreme<string>('min');
  private readonly endUrl = new Extreme<string>('max');
  private readonly referringDomain = new Extreme<string>('min');
  private readonly attribution = new Map<string, Extreme<string>>();
  private readonly externalClick = new Extreme<string>('max');
  private readonly lcp = new Extreme<number>('min');
  private readonly channel = new Extreme<ChannelTuple>('min');
  private readonly pageviews = new Set<string>();
  private readonly autocaptures = new Set<string>();
  private readonly screens = new Set<string>();
  private anonymous = 0;

  constructor(readonly sessionId: string) {
    for (const key of [...SESSION_UTM_PARAMS, ...SESSION_CLICK_IDS]) this.attribution.set(key, new Extreme('min'));
  }

  add(event: SessionEventInput): void {
    const ts = toMillis(event.timestamp);
    if (!Number.isFinite(ts)) return;
    const props = isJsonObject(event.properties) ? event.properties : {};
    if (ts < this.start) this.start = ts;
    if (ts > this.end) this.end = ts;
    const url = stringValue(props['$current_url']);
    const entry = entryTime(event.event, ts);
    this.entryUrl.offer(entry, url);
    this.endUrl.offer(exitTime(event.event, ts), url);
    const referringDomain = stringValue(props['$referring_domain']);
    this.referringDomain.offer(entry, referringDomain);
    for (const [key, acc] of this.attribution) acc.offer(entry, stringValue(props[key]));
    this.channel.offer(entry, {
      utmSource: stringValue(props['utm_source']),
      utmMedium: stringValue(props['utm_medium']),
      utmCampaign: stringValue(props['utm_campaign']),
      referringDomain,
      hasGclid: stringValue(props['gclid']) !== null,
      hasFbclid: stringValue(props['fbclid']) !== null,
      gadSource: stringValue(props['gad_source']),
    });
    this.externalClick.offer(ts, stringValue(props['$external_click_url']));
    this.lcp.offer(ts, numberValue(props['$web_vitals_LCP_value']));
    const id = typeof event.uuid === 'string' && event.uuid !== '' ? event.uuid : `\u0000${this.anonymous++}`;
    if (event.event === '$pageview') this.pageviews.add(id);
    else if (event.event === '$autocapture') this.autocaptures.add(id);
    else if (event.event === '$screen') this.screens.add(id);
  }

  /** Null until at least one event with a valid timestamp was added. */
  result(customRules: readonly CustomChannelRule[] = []): SessionProperties | null {
    if (!Number.isFinite(this.start)) return null;
    const duration = Math.floor(this.end / 1000) - Math.floor(this.start / 1000);
    const entryUrl = this.entryUrl.value;
    const endUrl = this.endUrl.value;
    const attribution: Record<string, string | null> = {};
    for (const [key, acc] of this.attribution) attribution[`$entry_${key}`] = acc.value;
    const referringDomain = this.referringDomain.value;
    const entryHostname = entryUrl === null ? null : urlDomain(entryUrl);
    const entryPathname = entryUrl === null ? null : urlPath(entryUrl);
    return {
      $session_id: this.sessionId,
      $start_timestamp: new Date(this.start).toISOString(),
      $end_timestamp: new Date(this.end).toISOString(),
      $entry_current_url: entryUrl,
      $entry_pathname: entryPathname,
      $entry_hostname: entryHostname,
      $end_current_url: endUrl,
      $end_pathname: endUrl === null ? null : urlPath(endUrl),
      $end_hostname: endUrl === null ? null : urlDomain(endUrl),
      $entry_referring_domain: referringDomain,
      ...attribution,
      $pageview_count: this.pageviews.size,
      $autocapture_count: this.autocaptures.size,
      $screen_count: this.screens.size,
      $channel_type: channelType({ ...this.channel.value, url: entryUrl, hostname: entryHostname, pathname: entryPathname }, customRules),
      $session_duration: duration,
      $is_bounce:
        this.pageviews.size === 0 ? null : this.pageviews.size === 1 && this.autocaptures.size === 0 && duration < BOUNCE_DURATION_SECONDS,
      $last_external_click_url: this.externalClick.value,
      $vitals_lcp: this.lcp.value,
    };
  }
}

/** PostHog's default bounce duration (`bounceRateDurationSeconds`): a session this long is no bounce. */
export const BOUNCE_DURATION_SECONDS = 10;

/**
 * Groups events by `properties.$session_id` (events without a non-empty string session id are skipped)
 * and computes each session's properties. Sessions come out in order of first appearance.
 */
export function computeSessionProperties(
  events: Iterable<SessionEventInput>,
  options: { customChannelRules?: readonly CustomChannelRule[] } = {},
): Map<string, SessionProperties> {
  const accumulators = new Map<string, SessionAccumulator>();
  for (const event of events) {
    const sessionId = isJsonObject(event.properties) ? event.properties['$session_id'] : undefined;
    if (typeof sessionId !== 'string' || sessionId === '') continue;
    let acc = accumulators.get(sessionId);
    if (!acc) {
      acc = new SessionAccumulator(sessionId);
      accumulators.set(sessionId, acc);
    }
    acc.add(event);
  }
  const out = new Map<string, SessionProperties>();
  for (const [id, acc] of accumulators) {
    const result = acc.result(options.customChannelRules);
    if (result) out.set(id, result);
  }
  return out;
}
