/**
 * Resolves in the next turn of the event loop, after the I/O that is waiting (setImmediate runs
 * after the poll phase). A background loop whose awaits all resolve at once (better-sqlite3 is
 * synchronous) or inside one message handler (a worker thread's answers are drained up to 1000
 * at a time) never lets a request in otherwise: it awaits this between units of work.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
