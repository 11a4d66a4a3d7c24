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

/**
 * Where decoded text goes. Every dictionary entry is a stretch of what was written before (the
 * previous word and the first character after it), so an entry is kept as its place in the
 * output, not as a string of its own, and emitting one is a copy within the output.
 */
interface Output {
  readonly length: number;
  /** Room for `count` more units; false when that would pass the cap. */
  reserve(count: number): boolean;
  push(unit: number): void;
  /** Appends the `count` units that start at `start` (already written). */
  repeat(start: number, count: number): void;
  at(index: number): number;
}

/** Counts what would be written, writing nothing: a first pass that finds bombs and bad streams. */
class Tally implements Output {
  length = 0;
  constructor(private readonly maxChars: number) {}
  reserve(count: number): boolean {
    return this.length + count <= this.maxChars;
  }
  push(): void {
    this.length++;
  }
  repeat(_start: number, count: number): void {
    this.length += count;
  }
  at(): number {
    return 0;
  }
}

/** The text, in one buffer of UTF-16 code units of the size the tally found. */
class Units implements Output {
  private readonly units: Uint16Array;
  length = 0;
  constructor(size: number) {
    this.units = new Uint16Array(size);
  }
  reserve(): boolean {
    return true;
  }
  push(unit: number): void {
    this.units[this.length++] = unit;
  }
  repeat(start: number, count: number): void {
    this.units.copyWithin(this.length, start, start + count);
    this.length += count;
  }
  at(index: number): number {
    return this.units[index]!;
  }
  /** Code unit for code unit (lone surrogates too: utf16le decoding copies them as they are). */
  text(): string {
    return Buffer.from(this.units.buffer, this.units.byteOffset, this.length * 2).toString('utf16le');
  }
}

type Decoded = { ok: true; length: number } | { ok: false; reason: 'invalid' | 'too_large' };

/**
 * Decodes lz-string base64 text; gives up as soon as the output would pass `maxChars`. A first
 * pass only counts: a body that would pass the cap, or is no stream at all, is refused after work
 * in proportion to its own length, whatever it would expand to; only a stream that ends well
 * within the cap is decoded again, into a buffer of its exact size.
 */
export function decompressLz64(input: string, maxChars: number): Lz64Result {
  const tally = decode(input, new Tally(maxChars));
  if (!tally.ok) return tally;
  const units = new Units(tally.length);
  decode(input, units);
  return { ok: true, text: units.text() };
}

function decode(input: string, output: Output): Decoded {
  if (input.length === 0) return { ok: false, reason: 'invalid' };
  const reader = new BitReader(input);
  // Entry i of the dictionary is output[starts[i], starts[i] + lengths[i]); 0-2 are the codes.
  const starts: number[] = [0, 0, 0];
  const lengths: number[] = [0, 0, 0];
  let width = 3;
  let untilWider = 4;

  const first = reader.read(2);
  if (first === undefined || first === 2) return { ok: false, reason: 'invalid' };
  const literal = reader.read(first === 0 ? 8 : 16);
  if (literal === undefined) return { ok: false, reason: 'invalid' };
  if (!output.reserve(1)) return { ok: false, reason: 'too_large' };
  output.push(literal);
  starts.push(0);
  lengths.push(1);
  // The word just emitted: where it starts and how long it is.
  let wordStart = 0;
  let wordLength = 1;

  for (;;) {
    const code = reader.read(width);
    if (code === undefined || reader.exhausted) return { ok: false, reason: 'invalid' };
    const entryStart = output.length;
    let entryLength: number;
    if (code === 0 || code === 1) {
      // A literal: a new entry of one character, emitted at once.
      const char = reader.read(code === 0 ? 8 : 16);
      if (char === undefined) return { ok: false, reason: 'invalid' };
      if (!output.reserve(1)) return { ok: false, reason: 'too_large' };
      output.push(char);
      starts.push(entryStart);
      lengths.push(1);
      entryLength = 1;
      if (--untilWider === 0) untilWider = 2 ** width++;
    } else if (code === 2) {
      return { ok: true, length: output.length };
    } else if (code < starts.length) {
      entryLength = lengths[code]!;
      if (!output.reserve(entryLength)) return { ok: false, reason: 'too_large' };
      output.repeat(starts[code]!, entryLength);
    } else if (code === starts.length) {
      // The entry about to be made: the word and its own first character.
      entryLength = wordLength + 1;
      if (!output.reserve(entryLength)) return { ok: false, reason: 'too_large' };
      output.repeat(wordStart, wordLength);
      output.push(output.at(wordStart));
    } else {
      return { ok: false, reason: 'invalid' };
    }
    // The word and the entry's first character, which the output holds right after the word.
    starts.push(wordStart);
    lengths.push(wordLength + 1);
    wordStart = entryStart;
    wordLength = entryLength;
    if (--untilWider === 0) untilWider = 2 ** width++;
  }
}
