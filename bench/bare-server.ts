import cluster from 'node:cluster';
import Fastify from 'fastify';

/**
 * The baseline: a bare fastify endpoint that reads a JSON body and answers like capture does.
 * Hoglet's figures are reported as a ratio of this, measured in the same run on the same machine.
 * BARE_PROCESSES=N serves from N processes on one port through node's cluster module, as
 * HTTP_PROCESSES does for Hoglet, so a multi-process figure has a like-for-like baseline too.
 */
const processes = Math.max(1, Number(process.env.BARE_PROCESSES ?? 1));

async function serve(): Promise<string> {
  const app = Fastify({ logger: false, bodyLimit: 25 * 1024 * 1024 });
  app.post('/capture/', async () => ({ status: 1 }));
  app.post('/batch/', async () => ({ status: 1 }));
  app.post('/decide/', async () => ({ featureFlags: {} }));
  // In a cluster worker, port 0 is the one port the primary chose for all of them.
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  const address = app.server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

if (processes === 1) {
  process.stdout.write(`listening ${await serve()}\n`);
} else if (cluster.isPrimary) {
  const workers = Array.from({ length: processes }, () => cluster.fork());
  // A worker that dies before it listens fails the start (the bench would otherwise wait forever).
  const urls = await Promise.all(
    workers.map(
      (w) =>
        new Promise<string>((resolve, reject) => {
          w.once('message', resolve);
          w.once('exit', (code) => reject(new Error(`bare server process exited with ${code} before listening`)));
        }),
    ),
  ).catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    for (const worker of workers) worker.kill('SIGTERM');
    process.exit(1);
  });
  process.stdout.write(`listening ${urls[0]}\n`);
  process.on('SIGTERM', () => {
    for (const worker of workers) worker.kill('SIGTERM');
    process.exit(0);
  });
} else {
  process.send!(await serve());
}
