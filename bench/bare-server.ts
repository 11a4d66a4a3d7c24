import Fastify from 'fastify';

/**
 * The baseline: a bare fastify endpoint that reads a JSON body and answers like capture does.
 * Hoglet's figures are reported as a ratio of this, measured in the same run on the same machine.
 */
const app = Fastify({ logger: false, bodyLimit: 25 * 1024 * 1024 });
app.post('/capture/', async () => ({ status: 1 }));
app.post('/batch/', async () => ({ status: 1 }));
app.post('/decide/', async () => ({ featureFlags: {} }));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address() as { port: number };
process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
