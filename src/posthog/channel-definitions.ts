/**
 * The lookup tables of PostHog's channel type (posthog/models/channel_type/channel_definitions.json,
 * GA4's source categories), read by the rules in channel-rules.ts.
 *
 * All medium entries are reproduced; the source table is a subset (the major search engines, social
 * networks, video, shopping and webmail hosts): an unknown source falls through to the later rules
 * exactly as an unlisted source does in PostHog.
 */

/** [type if paid, type if organic]; null when the entry has no paid type. */
export type ChannelEntry = readonly [string | null, string];
type Entry = ChannelEntry;

const SEARCH: Entry = ['Paid Search', 'Organic Search'];
const SOCIAL: Entry = ['Paid Social', 'Organic Social'];
const VIDEO: Entry = ['Paid Video', 'Organic Video'];
const SHOPPING: Entry = ['Paid Shopping', 'Organic Shopping'];
const EMAIL: Entry = [null, 'Email'];

export const MEDIUM_TYPES: Record<string, Entry> = {
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

export const SOURCE_TYPES: Record<string, Entry> = {};
function add(entry: Entry, names: string[]): void {
  for (const name of names) SOURCE_TYPES[name] = entry;
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

/**
 * Hosts whose ccTLD variants are all search engines in GA4's list (google.de, bing.co.uk...), matched
 * on a source's significant domain (RE2 and JavaScript read it alike). Hoglet's, in place of those
 * entries of the full table.
 */
export const SEARCH_CCTLD_PATTERN = String.raw`^(google|bing|yahoo|yandex)\.[a-z]{2,3}(\.[a-z]{2})?$`;

const INSIGNIFICANT_SECOND_LEVEL = new Set(['com', 'net', 'org', 'co']);

/**
 * ClickHouse `cutToFirstSignificantSubdomain`: the registrable part of a host, e.g. `www.google.co.uk` →
 * `google.co.uk`, `l.facebook.com` → `facebook.com`; `''` for a single label. Case is kept, as ClickHouse keeps it.
 */
export function cutToFirstSignificantSubdomain(input: string): string {
  let host = input;
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
