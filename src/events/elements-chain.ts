/**
 * PostHog's `chain_to_elements` (posthog/models/element/element.py) as its ElementSerializer shows
 * the elements: the chain split on `;` outside quotes, each element's `tag.class.class` before the
 * first `:name=`, and its `name="value"` attributes (text, href, attr_id, nth-child and nth-of-type
 * promoted to fields). PostHog does this with three regexes; two of them backtrack without bound
 * on an unclosed quote, so they are replayed here as linear scans that find what Python's regex
 * engine finds (a chain is client text).
 */
import { isPySpace, pyInt } from '../posthog/python-values.js';

export interface SerializedElement {
  event: null;
  text: string | null;
  tag_name: string | null;
  attr_class: string[] | null;
  href: string | null;
  attr_id: string | null;
  nth_child: number | null;
  nth_of_type: number | null;
  attributes: Record<string, string>;
  order: number;
}

/**
 * `split_chain_regex.findall`: runs of `[^\s;"]` or `"(?:\\.|[^"])*"` chunks. `closeAt[i]` is where
 * a quoted chunk whose body starts at i ends (after its closing quote), or -1: the first answer of
 * the regex's depth-first search (an escape pair, else one character, else the closing quote),
 * computed from the end so each position is decided once.
 */
function splitChain(chain: string): string[] {
  const n = chain.length;
  const closeAt = new Int32Array(n + 2).fill(-1);
  for (let i = n - 1; i >= 0; i--) {
    const c = chain[i];
    let end = -1;
    if (c === '\\' && i + 1 < n && chain[i + 1] !== '\n') end = closeAt[i + 2]!;
    if (end < 0 && c !== '"') end = closeAt[i + 1]!;
    if (end < 0 && c === '"') end = i + 1;
    closeAt[i] = end;
  }
  const plain = (c: string) => c !== ';' && c !== '"' && !isPySpace(c);
  const tokens: string[] = [];
  for (let pos = 0; pos < n;) {
    let end = pos;
    for (;;) {
      if (end < n && plain(chain[end]!)) end++;
      else if (end < n && chain[end] === '"' && closeAt[end + 1]! >= 0) end = closeAt[end + 1]!;
      else break;
    }
    if (end === pos) pos++;
    else {
      tokens.push(chain.slice(pos, end));
      pos = end;
    }
  }
  return tokens;
}

/**
 * `split_class_attributes.search`, `(.*?)($|:([a-zA-Z\-\_0-9]*=.*))`: the text before the first
 * `:name=` (or the end), and from that name to the end of its line. `.` stops at a newline, so a
 * line that has neither moves the search past it.
 */
function splitTagAndAttributes(element: string): { tag: string; attributes: string | null } {
  const n = element.length;
  for (let start = 0; start <= n;) {
    let e = start;
    for (;;) {
      if (e === n || (e === n - 1 && element[e] === '\n')) return { tag: element.slice(start, e), attributes: null };
      if (element[e] === ':') {
        let k = e + 1;
        while (k < n && /[a-zA-Z0-9_-]/.test(element[k]!)) k++;
        if (element[k] === '=') {
          const lineEnd = element.indexOf('\n', k);
          return { tag: element.slice(start, e), attributes: element.slice(e + 1, lineEnd < 0 ? n : lineEnd) };
        }
      }
      if (element[e] === '\n') break;
      e++;
    }
    start = e + 1;
  }
  return { tag: '', attributes: null };
}

/**
 * `parse_attributes_regex.finditer`, `(.*?)="((?:[^"\\]|\\.)*)"`: each key runs to the first `="`
 * whose value closes (a value is read up to its first unescaped quote; a backslash at the end, or
 * no quote, and that `="` starts nothing). The attributes part holds no newline.
 */
function* attributePairs(text: string): Generator<[string, string]> {
  const n = text.length;
  const valueEnd = (from: number): number => {
    for (let i = from; i < n; i++) {
      if (text[i] === '"') return i;
      if (text[i] === '\\') {
        if (i + 1 >= n) return -1;
        i++;
      }
    }
    return -1;
  };
  for (let pos = 0, k = text.indexOf('="', 0); k >= 0; k = text.indexOf('="', k + 1)) {
    const end = valueEnd(k + 2);
    if (end < 0) continue;
    yield [text.slice(pos, k), text.slice(k + 2, end)];
    pos = end + 1;
    k = end;
  }
}

/** `int(value)` or None, as `_int_or_none`; the model's IntegerField hands the int back. */
const intOrNull = (value: string) => pyInt(value);

const PROMOTED = new Map<string, (element: SerializedElement, value: string) => void>([
  ['text', (e, v) => (e.text = v)],
  ['href', (e, v) => (e.href = v)],
  ['attr_id', (e, v) => (e.attr_id = v)],
  ['nth-child', (e, v) => (e.nth_child = intOrNull(v))],
  ['nth-of-type', (e, v) => (e.nth_of_type = intOrNull(v))],
]);

function parseElement(text: string, order: number): SerializedElement {
  const { tag, attributes } = splitTagAndAttributes(text);
  const element: SerializedElement = {
    event: null,
    text: null,
    tag_name: null,
    attr_class: null,
    href: null,
    attr_id: null,
    nth_child: null,
    nth_of_type: null,
    // Keys are the page's attribute names: a null prototype keeps `__proto__` a plain key.
    attributes: Object.create(null) as Record<string, string>,
    order,
  };
  if (tag) {
    const dot = tag.indexOf('.');
    element.tag_name = dot < 0 ? tag : tag.slice(0, dot);
    if (dot >= 0)
      element.attr_class = tag
        .slice(dot + 1)
        .split('.')
        .filter((c) => c !== '');
  }
  if (attributes) {
    for (const [key, value] of attributePairs(attributes)) {
      const promote = PROMOTED.get(key);
      if (promote) promote(element, value);
      else if (key) element.attributes[key] = value;
    }
  }
  return element;
}

/** The event's `elements`: [] for an empty (or absent) chain. */
export function chainToElements(chain: string | null | undefined): SerializedElement[] {
  if (!chain) return [];
  return splitChain(chain).map(parseElement);
}
