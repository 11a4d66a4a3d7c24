import http from 'node:http';
import { randomUUID } from 'node:crypto';

/**
 * The floor of decide over HTTP (`BENCH_DECIDE_FLOOR=1` in decide-only.ts): node's HTTP server
 * doing only what no decide can skip. It reads the body and parses it as JSON, and answers with
 * the text of a real decide answer (DECIDE_FLOOR_ANSWER, its request id fresh each time), written
 * at the end of the event loop's turn as Hoglet's fast lane writes decide's answers (router.ts).
 * No flag is evaluated: measured beside bare fastify, it shows how close to bare any decide with
 * this request and answer could come on this machine.
 */
const answer = process.env.DECIDE_FLOOR_ANSWER ?? '{}';
const ID = /"requestId":"[^"]*"/;
const finished: Array<{ response: http.ServerResponse; text: string }> = [];

function writeFinished(): void {
  for (const { response, text } of finished.splice(0)) {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  }
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (finished.length === 0) setImmediate(writeFinished);
    finished.push({ response, text: answer.replace(ID, `"requestId":"${randomUUID()}"`) });
  });
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
