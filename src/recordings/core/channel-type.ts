/**
 * PostHog's `$channel_type` (posthog/hogql/database/schema/channel_type.py), evaluated in TypeScript.
 *
 * Inputs are the session's entry attribution: utm source/medium/campaign (lower-cased, `''` and `'null'`
 * treated as missing), entry referring domain (as stored: `'$direct'` when there was no referrer), whether a
 * gclid / fbclid was present, and `gad_source`. Team custom channel rules are tried first.
 *
 * The source/medium lookups use PostHog's `channel_definitions.json` (GA4's source categories). All medium
 * entries are reproduced; the source table here is a subset (the major search engines, social networks,
 * video, shopping and webmail hosts) — unknown sources fall through to the later rules exactly as an
 * unlisted source does in PostHog.
 */
import { compileClickHouseRegex } from '../../lib/linear-regex.js';
import type { BASIC_PROPERTY_OPERATORS } from '../../posthog/property-operators.js';

export const DEFAULT_CHANNEL_TYPES = [
  'Cross Network',
  'Paid Search',
  'Paid Social',
  'Paid Video',
  'Paid Shopping',
  'Paid Unknown',
  'Direct',
  'Organic Search',
  'Organic Social',
  'Organic Video',
  'Organic Shopping',
  'Push',
  'SMS',
  'Audio',
  'Email',
  'Referral',
  'Affiliate',
  'Unknown',
] as const;

export interface ChannelInputs {
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  referringDomain?: string | null;
  url?: string | null;
  hostname?: string | null;
  pathname?: string | null;
  hasGclid?: boolean;
  hasFbclid?: boolean;
  gadSource?: string | null;
}

export type CustomChannelField = 'utm_source' | 'utm_medium' | 'utm_campaign' | 'url' | 'hostname' | 'pathname' | 'referring_domain';
/** The basic operators but the numeric comparisons, which channel rules do not offer. */
export type CustomChannelOperator = Exclude<(typeof BASIC_PROPERTY_OPERATORS)[number], 'gt' | 'gte' | 'lt' | 'lte'>;

/** A team modifier `customChannelTypeRules` entry. */
export interface CustomChannelRule {
  id?: string;
  channel_type: string;
  combiner: 'AND' | 'OR';
  items: { key: CustomChannelField; op: CustomChannelOperator; value?: string | string[] | null }[];
}

type Kind = 'source' | 'medium';
/** [type if paid, type if organic] */
type Entry = readonly [string | null, string];

const SEARCH: Entry = ['Paid Search', 'Organic Search'];
const SOCIAL: Entry = ['Paid Social', 'Organic Social'];
const VIDEO: Entry = ['Paid Video', 'Organic Video'];
const SHOPPING: Entry = ['Paid Shopping', 'Organic Shopping'];
const EMAIL: Entry = [null, 'Email'];

const MEDIUMS: Record<string, Entry> = {
  affiliate: [null, 'Affiliate'],
  app: [null, 'Referral'],
  audio: [null, 'Audio'],
  banner: ['Display', 'Display'],
  cpm: ['Display', 'Display'],
  display: ['Display', 'Display'],
  'e mail': EMAIL,
  'e-mail': EMAIL,
  e_mail: EMAIL,
  email: EMAIL,
  expandable: ['Display', 'Display'],
  interstitial: ['Display', 'Display'],
  link: [null, 'Referral'],
  mobile: [null, 'Push'],
  notification: [null, 'Push'],
  partnership: [null, 'Affiliate'],
  partnerships: [null, 'Affiliate'],
  push: [null, 'Push'],
  referral: [null, 'Referral'],
  sm: SOCIAL,
  social: SOCIAL,
  'social media': SOCIAL,
  'social network': SOCIAL,
  'social-media': SOCIAL,
  'social-network': SOCIAL,
  video: VIDEO,
};

const SOURCES: Record<string, Entry> = {};
function add(entry: Entry, names: string[]): void {
  for (const name of names) SOURCES[name] = entry;
}
add(SEARCH, [
  'google',
  'google.com',
  'bing',
  'bing.com',
  'cn.bing.com',
  'yahoo',
  'yahoo.com',
  'search.yahoo.com',
  'yahoo.co.jp',
  'search.yahoo.co.jp',
  'duckduckgo',
  'duckduckgo.com',
  'baidu',
  'baidu.com',
  'm.baidu.com',
  'yandex',
  'yandex.ru',
  'yandex.com',
  'ya.ru',
  'ecosia.org',
  'ask',
  'ask.com',
  'aol',
  'search.aol.com',
  'naver',
  'naver.com',
  'm.search.naver.com',
  'search.brave.com',
  'qwant',
  'qwant.com',
  'startpage',
  'startpage.com',
  'seznam',
  'seznam.cz',
  'daum',
  'daum.net',
  'so.com',
  'sogou',
  'sogou.com',
  'msn',
  'msn.com',
]);
add(SOCIAL, [
  'facebook',
  'facebook.com',
  'm.facebook.com',
  'l.facebook.com',
  'lm.facebook.com',
  'fb',
  'fb.com',
  'instagram',
  'instagram.com',
  'l.instagram.com',
  'twitter',
  'twitter.com',
  'mobile.twitter.com',
  't.co',
  'x.com',
  'linkedin',
  'linkedin.com',
  'lnkd.in',
  'reddit',
  'reddit.com',
  'old.reddit.com',
  'out.reddit.com',
  'pinterest',
  'pinterest.com',
  'tiktok',
  'tiktok.com',
  'threads.net',
  'bsky.app',
  'mastodon.social',
  'news.ycombinator.com',
  'ycombinator.com',
  'quora',
  'quora.com',
  'snapchat',
  'snapchat.com',
  'tumblr',
  'tumblr.com',
  'vk.com',
  'weibo',
  'weibo.com',
  'discord',
  'discord.com',
  'whatsapp',
  'whatsapp.com',
  'telegram',
  'telegram.org',
  'stackoverflow',
  'stackoverflow.com',
  'medium.com',
  'producthunt.com',
  'slack',
  'slack.com',
  'bit.ly',
  'blogger',
  'blogger.com',
]);
add(VIDEO, [
  'youtube',
  'youtube.com',
  'm.youtube.com',
  'youtu.be',
  'vimeo',
  'vimeo.com',
  'twitch',
  'twitch.tv',
  'dailymotion',
  'dailymotion.com',
  'bilibili.com',
  'wistia.com',
  'netflix',
  'netflix.com',
]);
add(SHOPPING, [
  'amazon',
  'amazon.com',
  'amazon.co.uk',
  'ebay',
  'ebay.com',
  'ebay.co.uk',
  'etsy',
  'etsy.com',
  'shopify',
  'shopify.com',
  'walmart',
  'walmart.com',
  'aliexpress',
  'aliexpress.com',
  'alibaba',
  'alibaba.com',
  'shopping.google.com',
  'target.com',
  'mercadolibre.com',
]);
add(EMAIL, [
  'gmail',
  'mail.google.com',
  'outlook.live.com',
  'outlook.office.com',
  'outlook.office365.com',
  'mail.yahoo.com',
  'mail.aol.com',
  'mail.proton.me',
  'email',
  'e-mail',
  'e_mail',
  'e mail',
]);

/** Hosts whose ccTLD variants are all search engines in GA4's list (google.de, bing.co.uk...). */
const SEARCH_CCTLD = /^(google|bing|yahoo|yandex)\.[a-z]{2,3}(\.[a-z]{2})?$/;

const INSIGNIFICANT_SECOND_LEVEL = new Set(['com', 'net', 'org', 'co']);

/**
 * ClickHouse `cutToFirstSignificantSubdomain`: the registrable part of a host, e.g. `www.google.co.uk` →
 * `google.co.uk`, `l.facebook.com` → `facebook.com`; `''` for a single label.
 */
export function cutToFirstSignificantSubdomain(input: string): string {
  let host = input.trim().toLowerCase();
  const scheme = host.indexOf('://');
  if (scheme >= 0) host = host.slice(scheme + 3);
  host = host.split(/[/?#]/)[0] ?? '';
  host = host.replace(/^.*@/, '').replace(/:\d+$/, '').replace(/\.$/, '');
  const labels = host.split('.').filter((l) => l !== '');
  if (labels.length < 2) return '';
  const secondLevel = labels[labels.length - 2]!;
  if (INSIGNIFICANT_SECOND_LEVEL.has(secondLevel) && labels.length >= 3) return labels.slice(-3).join('.');
  return labels.slice(-2).join('.');
}

function lookup(value: string | null, kind: Kind, which: 0 | 1): string | null {
  if (value === null) return null;
  if (kind === 'medium') return Object.hasOwn(MEDIUMS, value) ? (MEDIUMS[value]?.[which] ?? null) : null;
  const exact = Object.hasOwn(SOURCES, value) ? SOURCES[value]?.[which] : undefined;
  if (exact) return exact;
  const cut = cutToFirstSignificantSubdomain(value);
  if (cut === '') return null;
  const viaCut = Object.hasOwn(SOURCES, cut) ? SOURCES[cut]?.[which] : undefined;
  if (viaCut) return viaCut;
  if (SEARCH_CCTLD.test(cut)) return SEARCH[which];
  return null;
}

/** `lower(nullIf(nullIf(x, ''), 'null'))` */
function norm(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value === '' || value === 'null') return null;
  return value.toLowerCase();
}

const SHOPPING_CAMPAIGN = /^(.*(([^a-df-z]|^)shop|shopping).*)$/;
const VIDEO_CAMPAIGN = /^(.*video.*)$/;
const PAID_MEDIUMS = new Set(['cpc', 'cpm', 'cpv', 'cpa', 'ppc', 'retargeting']);

function matches(value: string | null, re: RegExp): boolean {
  return value !== null && re.test(value);
}

/** The built-in channel rules. */
export function defaultChannelType(inputs: ChannelInputs): (typeof DEFAULT_CHANNEL_TYPES)[number] | 'Display' {
  const campaign = norm(inputs.utmCampaign);
  const medium = norm(inputs.utmMedium);
  const source = norm(inputs.utmSource);
  const referringDomain = inputs.referringDomain ?? null;
  const hasGclid = inputs.hasGclid === true;
  const hasFbclid = inputs.hasFbclid === true;
  const gadSource =
    inputs.gadSource === null || inputs.gadSource === undefined || inputs.gadSource === '' || inputs.gadSource === 'null'
      ? null
      : inputs.gadSource;

  if (matches(campaign, /cross-network/)) return 'Cross Network';

  const paid = (medium !== null && (PAID_MEDIUMS.has(medium) || medium.startsWith('paid'))) || hasGclid || gadSource !== null;
  if (paid) {
    const found =
      lookup(source, 'source', 0) ??
      (matches(campaign, SHOPPING_CAMPAIGN) ? 'Paid Shopping' : null) ??
      lookup(medium, 'medium', 0) ??
      lookup(referringDomain, 'source', 0);
    if (found) return found as (typeof DEFAULT_CHANNEL_TYPES)[number] | 'Display';
    if (gadSource === '1') return 'Paid Search';
    if (matches(campaign, VIDEO_CAMPAIGN)) return 'Paid Video';
    if (hasFbclid) return 'Paid Social';
    return 'Paid Unknown';
  }

  if (
    referringDomain === '$direct' &&
    medium === null &&
    (source === null || source === '(direct)' || source === 'direct' || source === '$direct') &&
    !hasFbclid
  ) {
    return 'Direct';
  }

  const organic =
    lookup(source, 'source', 1) ??
    (matches(campaign, SHOPPING_CAMPAIGN) ? 'Organic Shopping' : null) ??
    lookup(medium, 'medium', 1) ??
    lookup(referringDomain, 'source', 1);
  if (organic) return organic as (typeof DEFAULT_CHANNEL_TYPES)[number] | 'Display';
  if (matches(campaign, VIDEO_CAMPAIGN)) return 'Organic Video';
  if (matches(medium, /push$/)) return 'Push';
  if (hasFbclid) return 'Organic Social';
  if (referringDomain === '$direct') return 'Direct';
  if (referringDomain !== null) return 'Referral';
  return 'Unknown';
}

function fieldValue(inputs: ChannelInputs, key: CustomChannelField): string | null {
  const pick = (v: string | null | undefined) => (v === undefined || v === '' ? null : v);
  switch (key) {
    case 'utm_source':
      return pick(inputs.utmSource);
    case 'utm_medium':
      return pick(inputs.utmMedium);
    case 'utm_campaign':
      return pick(inputs.utmCampaign);
    case 'url':
      return pick(inputs.url);
    case 'hostname':
      return pick(inputs.hostname);
    case 'pathname':
      return pick(inputs.pathname);
    case 'referring_domain':
      return pick(inputs.referringDomain);
    default:
      return null;
  }
}

/** One condition with ClickHouse NULL semantics (a NULL comparison is false in `multiIf`). */
function condition(value: string | null, op: CustomChannelOperator, operand: string | null | undefined): boolean {
  switch (op) {
    case 'exact':
      return value !== null && value === operand;
    case 'is_not':
      return value !== null && value !== operand;
    case 'is_set':
      return value !== null;
    case 'is_not_set':
      return value === null;
    case 'icontains':
      return value !== null && value.toLowerCase().includes(String(operand ?? '').toLowerCase());
    case 'not_icontains':
      return value !== null && !value.toLowerCase().includes(String(operand ?? '').toLowerCase());
    case 'regex':
    case 'not_regex': {
      // ClickHouse's match: RE2, linear time; an invalid pattern is as a missing value.
      const regex = compileClickHouseRegex(String(operand ?? ''));
      const hit = value === null || regex === null ? null : regex.test(value);
      if (op === 'regex') return hit === true;
      return hit === null ? true : !hit;
    }
    default:
      return false;
  }
}

function ruleMatches(rule: CustomChannelRule, inputs: ChannelInputs): boolean {
  const results: boolean[] = [];
  for (const item of rule.items ?? []) {
    const value = fieldValue(inputs, item.key);
    if (Array.isArray(item.value)) {
      if (item.value.length === 0) continue;
      results.push(item.value.some((v) => condition(value, item.op, v)));
    } else {
      results.push(condition(value, item.op, item.value));
    }
  }
  if (results.length === 0) return true;
  return rule.combiner === 'OR' ? results.some(Boolean) : results.every(Boolean);
}

/** Custom rules first (first match wins), then the built-in rules. */
export function channelType(inputs: ChannelInputs, customRules: readonly CustomChannelRule[] = []): string {
  for (const rule of customRules) {
    if (ruleMatches(rule, inputs)) return rule.channel_type;
  }
  return defaultChannelType(inputs);
}
