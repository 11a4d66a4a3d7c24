/**
 * The HTML cleaning PostHog applies to survey texts (`nh3.is_html` and `nh3_clean_with_allow_list`
 * in posthog/api/survey.py): a question's text, its description and the thank-you texts that hold
 * markup keep only an allow-list of tags and attributes; scripts and styles are dropped with their
 * content, other tags are dropped and their text kept; links get `rel="noopener"`; URLs other than
 * relative ones or ammonia's default schemes are dropped. posthog-js renders these as HTML
 * (`descriptionContentType: "html"`), so nothing a survey's author writes runs as script.
 */

const TAGS = new Set(
  (
    'a abbr acronym area article aside b bdi bdo blockquote br caption center cite code col colgroup data dd del ' +
    'details dfn div dl dt em figcaption figure footer h1 h2 h3 h4 h5 h6 header hgroup hr i img ins kbd li map ' +
    'mark nav ol p pre q rp rt rtc ruby s samp small span strike strong sub summary sup table tbody td th thead ' +
    'time tr tt u ul var wbr'
  ).split(' '),
);

const VOID_TAGS = new Set(['area', 'br', 'col', 'hr', 'img', 'wbr']);

/** Tags removed together with everything inside them (ammonia's `clean_content_tags`). */
const CONTENT_DROPPED = new Set(['script', 'style']);

const ANY_ATTRIBUTES = new Set(['style', 'lang', 'title', 'width', 'height']);
const CELL = [
  'abbr',
  'align',
  'axis',
  'bgcolor',
  'char',
  'charoff',
  'colspan',
  'headers',
  'height',
  'nowrap',
  'rowspan',
  'scope',
  'valign',
  'width',
];
const ALIGNED = ['align', 'char', 'charoff', 'valign'];
const TAG_ATTRIBUTES: Record<string, Set<string>> = {
  a: new Set(['href', 'hreflang', 'target']),
  bdo: new Set(['dir']),
  blockquote: new Set(['cite']),
  col: new Set(['align', 'char', 'charoff', 'span']),
  colgroup: new Set(['align', 'char', 'charoff', 'span']),
  del: new Set(['cite', 'datetime']),
  hr: new Set(['align', 'size', 'width']),
  img: new Set(['align', 'alt', 'height', 'src', 'width']),
  ins: new Set(['cite', 'datetime']),
  ol: new Set(['start', 'type']),
  q: new Set(['cite']),
  table: new Set(['align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'frame', 'rules', 'summary', 'width']),
  tbody: new Set(ALIGNED),
  td: new Set(CELL),
  tfoot: new Set(ALIGNED),
  th: new Set(CELL),
  thead: new Set(ALIGNED),
  tr: new Set(['align', 'bgcolor', 'char', 'charoff', 'valign']),
};

const URL_ATTRIBUTES = new Set(['href', 'src', 'cite']);

/** ammonia's default URL schemes. */
const URL_SCHEMES = new Set(
  (
    'bitcoin ftp ftps geo http https im irc ircs magnet mailto mms mx news nntp openpgp4fpr sip sms smsto ssh tel url ' + 'webcal wtai xmpp'
  ).split(' '),
);

/** `nh3.is_html`: whether the text holds markup (a tag, a comment or a doctype). */
export function isHtml(text: string): boolean {
  return /<[a-zA-Z!/?]/.test(text);
}

const escapeText = (text: string) =>
  text
    .replace(/&(?![a-zA-Z]+;|#\d+;|#x[0-9a-fA-F]+;)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function decodeEntities(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);?/gi, (_m, hex: string) => String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff)))
    .replace(/&#(\d+);?/g, (_m, dec: string) => String.fromCodePoint(Math.min(Number(dec), 0x10ffff)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** A URL is kept when it is relative or its scheme is an allowed one (control characters and spaces ignored, as browsers do). */
function urlAllowed(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  const squeezed = value.replace(/[\u0000-\u0020\u007f]/g, '');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(squeezed);
  return !scheme || URL_SCHEMES.has(scheme[1]!.toLowerCase());
}

const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

function cleanAttributes(tag: string, raw: string): string {
  const allowed = TAG_ATTRIBUTES[tag];
  let out = '';
  const seen = new Set<string>();
  for (const match of raw.matchAll(ATTRIBUTE)) {
    const name = match[1]!.toLowerCase();
    if (seen.has(name) || !(ANY_ATTRIBUTES.has(name) || allowed?.has(name))) continue;
    if (tag === 'a' && name === 'rel') continue;
    const value = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
    if (URL_ATTRIBUTES.has(name) && !urlAllowed(value)) continue;
    seen.add(name);
    out += ` ${name}="${escapeAttribute(value)}"`;
  }
  if (tag === 'a') out += ' rel="noopener"';
  return out;
}

const TOKEN = /<!--[\s\S]*?(?:-->|$)|<![^>]*>?|<\?[^>]*>?|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;

/** `nh3_clean_with_allow_list`: the text with only allowed markup left, well nested. */
export function cleanHtml(html: string): string {
  let out = '';
  const open: string[] = [];
  let dropping: string | null = null;
  let last = 0;
  for (const match of html.matchAll(TOKEN)) {
    const text = html.slice(last, match.index);
    last = match.index + match[0].length;
    if (dropping === null) out += escapeText(text);
    const [, closing, rawName, attributes] = match;
    if (rawName === undefined) continue; // comments, doctypes, processing instructions
    const tag = rawName.toLowerCase();
    if (dropping !== null) {
      if (closing && tag === dropping) dropping = null;
      continue;
    }
    if (CONTENT_DROPPED.has(tag)) {
      if (!closing) dropping = tag;
      continue;
    }
    if (!TAGS.has(tag)) continue;
    if (closing) {
      const at = open.lastIndexOf(tag);
      if (at === -1) continue;
      while (open.length > at) out += `</${open.pop()}>`;
      continue;
    }
    out += `<${tag}${cleanAttributes(tag, attributes ?? '')}>`;
    if (!VOID_TAGS.has(tag) && !/\/\s*$/.test(attributes ?? '')) open.push(tag);
  }
  if (dropping === null) out += escapeText(html.slice(last));
  while (open.length > 0) out += `</${open.pop()}>`;
  return out;
}
