// A process that owns an embedded ClickHouse folder until it is killed (analytics-engine.test.ts).
import pino from 'pino';
import { FolderEngine } from '../../src/platform/analytics/folder-engine.js';

const folder = process.argv[2]!;
const engine = await FolderEngine.open({ path: folder, maxMemoryBytes: 512 * 1024 * 1024, maxThreads: 1 }, pino({ level: 'silent' }));
await engine.command(`CREATE TABLE IF NOT EXISTS ${engine.table('numbers')} (n Int64) ENGINE = MergeTree ORDER BY n`);
await engine.insert('numbers', '{"n":1}\n{"n":2}');
process.stdout.write(`owner ${engine.kind}\n`);
setInterval(() => undefined, 1000);
