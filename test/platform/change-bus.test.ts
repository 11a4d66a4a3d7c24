import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeBus, type Change } from '../../src/platform/change-bus.js';
import { BACKEND, TEST_DATABASE_URL } from '../helpers/backend.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

let server: TestServer;
let mine: ChangeBus;
let theirs: ChangeBus;

beforeAll(async () => {
  server = await startTestServer();
  const log = pino({ level: 'silent' });
  // Two buses on one database: two processes, as far as the notices can tell.
  mine = await ChangeBus.connect(log, server.running.ctx.database, TEST_DATABASE_URL);
  theirs = await ChangeBus.connect(log, server.running.ctx.database, TEST_DATABASE_URL);
});

afterAll(async () => {
  await mine?.close();
  await theirs?.close();
  await server?.close();
});

describe(`the change bus on ${BACKEND}`, () => {
  it("gives a process its own change once, and the other process's once", async () => {
    const heardByMine: Change[] = [];
    const heardByTheirs: Change[] = [];
    mine.on('bus-test', (change) => heardByMine.push(change));
    theirs.on('bus-test', (change) => heardByTheirs.push(change));

    await mine.publish({ topic: 'bus-test', id: 'from-mine' });
    // Notices reach a listener in the order they were sent: once the other's later one is here,
    // an echo of this process's own would have come before it.
    await theirs.publish({ topic: 'bus-test', id: 'from-theirs' });
    await waitFor(() => heardByMine.some((c) => c.id === 'from-theirs'), { what: "the other process's change" });
    await waitFor(() => heardByTheirs.some((c) => c.id === 'from-mine'), { what: "this process's change, elsewhere" });

    expect(heardByMine.filter((c) => c.id === 'from-mine')).toEqual([{ topic: 'bus-test', id: 'from-mine' }]);
    expect(heardByMine.filter((c) => c.id === 'from-theirs')).toEqual([{ topic: 'bus-test', id: 'from-theirs' }]);
    expect(heardByTheirs.filter((c) => c.id === 'from-mine')).toEqual([{ topic: 'bus-test', id: 'from-mine' }]);
  });
});
