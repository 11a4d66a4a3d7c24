/**
 * Backtracking regexes (look-around, back-references) run with a bound, as fancy-regex runs them
 * for the flags service with its backtrack limit: past the bound, the answer is "overflow".
 *
 * Such patterns cannot run on a linear-time engine (`lib/linear-regex.ts`) and V8 cannot limit a
 * regex's backtracking from JavaScript, so they run on a thread of their own while the caller
 * waits for the answer (Atomics.wait: the call stays synchronous, as flag evaluation is). When the
 * answer takes longer than the budget, the thread is terminated (V8 interrupts a running regex)
 * and a new one is started for the next pattern. Only patterns that need this path pay for it:
 * about a message round trip each.
 *
 * The budget is wall time, not steps, so it is generous (a loaded machine may keep the thread
 * waiting for a core), and it starts when the thread takes the pattern up: on a machine busy enough,
 * the message alone took longer than the budget to reach the thread, and a sane pattern got
 * `overflow`. A runaway pattern would then cost every call the whole budget, and the
 * texts come from clients (/decide's person properties): once a pattern overflowed, it answers
 * `overflow` at once, whatever the text, for a minute.
 */
import { Worker } from 'node:worker_threads';

/** Wall time a single test may take: generous for any sane pattern, bounded for a runaway one. */
export const BOUNDED_REGEX_BUDGET_MS = 250;
/** How long an overflow is remembered for its pattern. */
const OVERFLOW_MEMORY_MS = 60_000;
/** How long the first call waits for the thread to start (once per thread), and a call for the thread to take its pattern up. */
const START_TIMEOUT_MS = 10_000;

const IDLE = 0;
const MATCHED = 1;
const NOT_MATCHED = 2;
const INVALID = 3;
const READY = 4;
const RUNNING = 5;

/** The thread's side: patterns compiled once, answers written to the shared cell. */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const cell = new Int32Array(workerData);
const compiled = new Map();
parentPort.on('message', ({ source, flags, text }) => {
  Atomics.store(cell, 0, ${RUNNING});
  Atomics.notify(cell, 0);
  let answer;
  try {
    const key = flags + '/' + source;
    let regex = compiled.get(key);
    if (!regex) {
      if (compiled.size >= 1000) compiled.clear();
      compiled.set(key, (regex = new RegExp(source, flags)));
    }
    answer = regex.test(text) ? ${MATCHED} : ${NOT_MATCHED};
  } catch {
    answer = ${INVALID};
  }
  Atomics.store(cell, 0, answer);
  Atomics.notify(cell, 0);
});
Atomics.store(cell, 0, ${READY});
Atomics.notify(cell, 0);
`;

interface Runner {
  worker: Worker;
  cell: Int32Array;
}

let runner: Runner | undefined;
/** Per pattern (flags/source): when it last overflowed. */
const overflowed = new Map<string, number>();

function startRunner(): Runner | undefined {
  const shared = new SharedArrayBuffer(4);
  const cell = new Int32Array(shared);
  const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: shared });
  worker.unref();
  // An error on the thread (it ran out of memory, say) ends it: the next call starts another.
  worker.on('error', () => {
    if (runner?.worker === worker) runner = undefined;
  });
  if (Atomics.wait(cell, 0, IDLE, START_TIMEOUT_MS) === 'timed-out' && Atomics.load(cell, 0) !== READY) {
    void worker.terminate();
    return undefined;
  }
  return { worker, cell };
}

/**
 * Whether `regex` matches `text`, or `overflow` when finding out took longer than `budgetMs` (or
 * the pattern could not run at all).
 */
export function boundedRegexTest(regex: RegExp, text: string, budgetMs = BOUNDED_REGEX_BUDGET_MS): boolean | 'overflow' {
  const key = `${regex.flags}/${regex.source}`;
  const at = overflowed.get(key);
  if (at !== undefined && performance.now() - at < OVERFLOW_MEMORY_MS) return 'overflow';
  runner ??= startRunner();
  const current = runner;
  if (!current) return 'overflow';
  Atomics.store(current.cell, 0, IDLE);
  current.worker.postMessage({ source: regex.source, flags: regex.flags, text });
  Atomics.wait(current.cell, 0, IDLE, START_TIMEOUT_MS);
  Atomics.wait(current.cell, 0, RUNNING, budgetMs);
  const answer = Atomics.load(current.cell, 0);
  if (answer === MATCHED) return true;
  if (answer === NOT_MATCHED) return false;
  if (answer === IDLE || answer === RUNNING) {
    // Still running (or never taken up): this thread is stuck; the next call gets a fresh one.
    void current.worker.terminate();
    if (runner === current) runner = undefined;
    if (overflowed.size >= 1000) overflowed.clear();
    overflowed.set(key, performance.now());
  }
  return 'overflow';
}
