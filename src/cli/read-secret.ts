/**
 * A password from standard input, never from the command line (where `ps` and shell history see
 * it). On a terminal: asked for twice, nothing echoed. From a pipe or file: its first line.
 */
import type { Readable, Writable } from 'node:stream';

interface TtyInput extends Readable {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** The first line of a non-interactive input (without its line ending). */
export async function readFirstLine(input: Readable): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    const end = text.search(/\r?\n/);
    if (end >= 0) return text.slice(0, end);
    // A password line longer than this is not one.
    if (text.length > 4096) break;
  }
  return text.replace(/\r?\n$/, '');
}

/** One line typed without echo (raw mode): Enter ends it, Backspace erases, Ctrl-C aborts. */
function readHidden(input: TtyInput, output: Writable, prompt: string): Promise<string> {
  output.write(prompt);
  input.setRawMode!(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode!(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const c of chunk) {
        if (c === '\r' || c === '\n' || c === '\u0004') return done();
        if (c === '\u0003') return done(new Error('cancelled'));
        if (c === '\u007f' || c === '\b') value = value.slice(0, -1);
        else if (c >= ' ') value += c;
      }
    };
    input.on('data', onData);
  });
}

export async function readPassword(input: TtyInput = process.stdin, output: Writable = process.stderr): Promise<string> {
  if (input.isTTY && input.setRawMode) {
    const first = await readHidden(input, output, 'Password: ');
    const second = await readHidden(input, output, 'Password (again): ');
    if (first !== second) throw new Error('the two passwords differ; nothing was changed');
    return first;
  }
  return readFirstLine(input);
}
