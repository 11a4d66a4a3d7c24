/**
 * The thread the embedded ClickHouse runs in (chdb-thread.ts): it loads chdb's library once for
 * the process, opens a folder when asked, and answers statements, so that neither the library's
 * load nor any of the engine's work holds the process's main thread.
 */
import { parentPort } from 'node:worker_threads';
import { Session } from 'chdb';

export type ThreadRequest =
  | { id: number; op: 'open'; path: string; args: string[] }
  | { id: number; op: 'bind'; sql: string; params: Record<string, unknown>; format: string }
  | { id: number; op: 'raw'; sql: string; format: string }
  | { id: number; op: 'close' };

export type ThreadReply = { id: number; text: string } | { id: number; error: { name: string; message: string; code?: number } };

const port = parentPort!;
let session: Session | undefined;

function errorOf(error: unknown): { name: string; message: string; code?: number } {
  const e = error as { name?: string; message?: string; clickhouseCode?: unknown; code?: unknown };
  const raw = e.clickhouseCode ?? e.code;
  return { name: e.name ?? 'Error', message: e.message ?? String(error), ...(typeof raw === 'number' ? { code: raw } : {}) };
}

async function answer(request: ThreadRequest): Promise<string> {
  switch (request.op) {
    case 'open':
      if (session) throw new Error('a ClickHouse folder is open in this process already');
      session = new Session(request.path, { connectionArgs: request.args });
      return '';
    case 'close':
      session?.close();
      session = undefined;
      return '';
    case 'bind':
      if (!session) throw new Error('no ClickHouse folder is open');
      return (await session.queryBindAsync(request.sql, request.params, { format: request.format })).text();
    case 'raw':
      if (!session) throw new Error('no ClickHouse folder is open');
      return (await session.queryAsync(request.sql, { format: request.format })).text();
  }
}

port.on('message', (request: ThreadRequest) => {
  answer(request).then(
    (text) => port.postMessage({ id: request.id, text } satisfies ThreadReply),
    (error: unknown) => port.postMessage({ id: request.id, error: errorOf(error) } satisfies ThreadReply),
  );
});
