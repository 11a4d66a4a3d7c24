/**
 * Decoding of lz-string's base64 form (`compression=lz64`, old posthog-js), with a cap on the
 * output. The lz-string package has no such cap, and a small crafted body can expand to gigabytes
 * (each dictionary entry may be as long as all output so far), so capture decodes with this.
 *
 * The format: a bit stream (6 bits per base64 character, most significant first) of codes whose
 * width grows with the dictionary. Code 0 and 1 add a literal character (8 or 16 bits), 2 ends
 * the stream; any other code names a dictionary entry (or the entry about to be made: the last
 * word plus its own first character). After each code the previous word plus the first character
 * of the current one becomes a new entry.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
const VALUE_OF = new Map([...ALPHABET].map((char, index) => [char, index]));

export type Lz64Result = { ok: true; text: string } | { ok: false; reason: 'invalid' | 'too_large' };

class BitReader {
  private value = 0;
  private mask = 0;
  private index = 0;

  constructor(private readonly input: string) {}

  /** False once the input is used up (a stream must end with its end code before that). */
  get exhausted(): boolean {
    return this.index > this.input.length;
  }

  /** Reads `width` bits, least significant first, as lz-string writes them. */
  read(width: number): number | undefined {
    let bits = 0;
    for (let power = 1, n = 0; n < width; n++, power *= 2) {
      if (this.mask === 0) {
        if (this.index >= this.input.length) {
          this.index++;
          return undefined;
        }
        const value = VALUE_OF.get(this.input[this.index++]!);
        if (value === undefined) return undefined;
        this.value = value;
        this.mask = 32;
      }
      if (this.value & this.mask) bits += power;
      this.mask >>= 1;
    }
    return bits;
  }
}

/** Decodes lz-string base64 text; gives up as soon as the output would pass `maxChars`. */
export function decompressLz64(input: string, maxChars: number): Lz64Result {
  if (input.length === 0) return { ok: false, reason: 'invalid' };
  const reader = new BitReader(input);
  const dictionary: string[] = ['', '', ''];
  let width = 3;
  let untilWider = 4;

  const first = reader.read(2);
  if (first === undefined || first === 2) return { ok: false, reason: 'invalid' };
  const literal = reader.read(first === 0 ? 8 : 16);
  if (literal === undefined) return { ok: false, reason: 'invalid' };
  let word = String.fromCharCode(literal);
  dictionary.push(word);
  const output: string[] = [word];
  let length = word.length;

  for (;;) {
    const code = reader.read(width);
    if (code === undefined || reader.exhausted) return { ok: false, reason: 'invalid' };
    let index = code;
    if (code === 0 || code === 1) {
      const char = reader.read(code === 0 ? 8 : 16);
      if (char === undefined) return { ok: false, reason: 'invalid' };
      dictionary.push(String.fromCharCode(char));
      index = dictionary.length - 1;
      if (--untilWider === 0) untilWider = 2 ** width++;
    } else if (code === 2) {
      return { ok: true, text: output.join('') };
    }
    let entry: string;
    if (index < dictionary.length && index > 2) entry = dictionary[index]!;
    else if (index === dictionary.length) entry = word + word[0];
    else return { ok: false, reason: 'invalid' };
    length += entry.length;
    if (length > maxChars) return { ok: false, reason: 'too_large' };
    output.push(entry);
    dictionary.push(word + entry[0]);
    word = entry;
    if (--untilWider === 0) untilWider = 2 ** width++;
  }
}
