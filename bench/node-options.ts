/**
 * The node options of a `node <options> <entry> …` command line (package.json's scripts): what
 * `npm start` runs the server with, for the benchmarks to run it the same way. A loader
 * (`--import tsx`, for TypeScript run as it is) is how the code is loaded, not a setting: it is
 * left out.
 */
export function nodeOptionsOf(commandLine: string): string[] {
  const words = commandLine.trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node === -1) throw new Error(`not a "node <options> <entry> …" command line: ${commandLine}`);
  const options: string[] = [];
  for (let i = node + 1; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith('-')) return options;
    if (word === '--import') i++;
    else if (word.startsWith('--import='))
      throw new Error(`cannot read the loader of this command line (write "--import <module>"): ${commandLine}`);
    else options.push(word);
  }
  throw new Error(`no entry point in the command line: ${commandLine}`);
}

/**
 * The environment a command line sets for node (`NAME=value … exec node …`, as package.json's
 * scripts set MALLOC_ARENA_MAX): the variables assigned before `node`.
 */
export function environmentOf(commandLine: string): Record<string, string> {
  const words = commandLine.trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node === -1) throw new Error(`not a "node <options> <entry> …" command line: ${commandLine}`);
  const assigned = words.slice(0, node).filter((word) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  return Object.fromEntries(assigned.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]));
}
