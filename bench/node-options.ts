/**
 * The node options of a `node <options> --import tsx <entry> …` command line (package.json's
 * scripts): what `npm start` runs the server with, for the benchmarks to run it the same way.
 */
export function nodeOptionsOf(commandLine: string): string[] {
  const words = commandLine.trim().split(/\s+/);
  const node = words.indexOf('node');
  const entry = words.indexOf('--import');
  if (node === -1 || entry < node) throw new Error(`not a "node <options> --import tsx …" command line: ${commandLine}`);
  return words.slice(node + 1, entry);
}
