/**
 * The elements of a JSON array as the texts they are written in, without parsing them: a queue
 * chunk (queue.ts) is the JSON of its events joined into an array, and the worker hands each
 * event's text on as it is (to its prepare thread, to a deferred or parked row), so turning the
 * chunk into objects and back into text would cost it a serialisation per event for nothing.
 */

/**
 * Splits `text`, the JSON text of an array, into the texts of its elements (trimmed of
 * whitespace). Throws when `text` is not an array with well-formed brackets and strings; the
 * elements themselves are not validated (whoever reads one parses it).
 */
export function splitJsonArray(text: string): string[] {
  const open = skipWhitespace(text, 0);
  if (text.charCodeAt(open) !== 0x5b) throw new SyntaxError('a JSON array was expected');
  const elements: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = endOfString(text, i);
      if (i === -1) throw new SyntaxError('an unterminated string in a JSON array');
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth > 0) {
        depth--;
        continue;
      }
      if (c === 0x7d) throw new SyntaxError('unbalanced brackets in a JSON array');
      const last = text.slice(start, i).trim();
      if (last !== '') elements.push(last);
      else if (elements.length > 0) throw new SyntaxError('a trailing comma in a JSON array');
      if (skipWhitespace(text, i + 1) !== text.length) throw new SyntaxError('text after a JSON array');
      return elements;
    } else if (c === 0x2c && depth === 0) {
      const element = text.slice(start, i).trim();
      if (element === '') throw new SyntaxError('an empty element in a JSON array');
      elements.push(element);
      start = i + 1;
    }
  }
  throw new SyntaxError('an unterminated JSON array');
}

/**
 * The index of the quote that closes the JSON string opening at `open`: the next one not escaped
 * by an odd run of backslashes, found with indexOf (most of an event's text is strings, and the
 * native search is about twice as fast as a loop over characters); -1 when there is none.
 */
export function endOfString(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  for (;;) {
    if (end === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if ((backslashes & 1) === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}
