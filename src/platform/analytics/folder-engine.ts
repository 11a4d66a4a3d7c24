import path from 'node:path';
import type { Logger } from 'pino';
import { claimEmbedded, releaseEmbedded, EmbeddedEngine, EmbeddedFolderBusy, type EmbeddedOptions } from './embedded-engine.js';
import {
  AnalyticsError,
  parseJsonEachRow,
  quoteIdentifier,
  type AnalyticsEngine,
  type InsertOptions,
  type JsonEachRow,
  type QueryParams,
} from './engine.js';
import { callHost, hostEngine, HostUnreachable, readHostAddress, type EngineHost, type HostAddress } from './engine-host.js';

/** How long a process looks for the folder's owner before it gives up on a call (a host restarting takes a second or two). */
const FIND_OWNER_MS = 30_000;
const RETRY_PAUSE_MS = 100;

type Role = { owner: EmbeddedEngine; host: EngineHost } | { guest: HostAddress };

/**
 * The embedded engine of a data dir, for every process that uses that data dir: the first to open
 * the folder owns it and serves it to the others (engine-host.ts); the others are its guests. When
 * the owner stops, a guest's next call finds the folder free and takes it over, or finds the new
 * owner.
 */
export class FolderEngine implements AnalyticsEngine {
  /** Fixed when the engine is made, before it opens: stores write their SQL with it. */
  readonly database: string;
  private role: Role | undefined;
  private finding: Promise<Role> | undefined;
  private closed = false;

  constructor(
    private readonly options: EmbeddedOptions,
    private readonly log: Logger,
  ) {
    const claim = claimEmbedded(options.path);
    this.database = claim.database;
    this.pendingClaim = claim;
  }

  /** This process's place in its engine, until the folder turns out to be another process's. */
  private pendingClaim: ReturnType<typeof claimEmbedded> | undefined;

  /** Opened now (the server opens its engine with `begin` once it listens). */
  static async open(options: EmbeddedOptions, log: Logger): Promise<FolderEngine> {
    const engine = new FolderEngine(options, log);
    await engine.current();
    return engine;
  }

  /** Starts opening in the background; failures reach the calls that wait for it. */
  begin(): Promise<unknown> {
    return this.current();
  }

  get kind(): 'embedded' | 'guest' {
    return this.role && 'guest' in this.role ? 'guest' : 'embedded';
  }

  private get addressFile(): string {
    return path.join(path.dirname(this.options.path), `${path.basename(this.options.path)}-host.json`);
  }

  table(name: string): string {
    return `${quoteIdentifier(this.database)}.${quoteIdentifier(name)}`;
  }

  private current(): Promise<Role> {
    if (this.role) return Promise.resolve(this.role);
    this.finding ??= this.findOwner().finally(() => (this.finding = undefined));
    return this.finding;
  }

  /** Opens the folder, or finds the process that has it open. */
  private async findOwner(): Promise<Role> {
    const deadline = Date.now() + FIND_OWNER_MS;
    for (;;) {
      if (this.closed) throw new AnalyticsError('the analytics engine is closed');
      // An owner that answers is asked first: opening a folder another process holds fails (and ClickHouse says so on stderr).
      const address = readHostAddress(this.addressFile);
      if (address && address.pid !== process.pid && (await reachable(address))) {
        this.log.info({ host: address.url, pid: address.pid }, 'analytics engine reached through the process that owns its folder');
        return (this.role = { guest: address });
      }
      try {
        const claim = this.pendingClaim ?? claimEmbedded(this.options.path);
        this.pendingClaim = undefined;
        const owner = await EmbeddedEngine.fromClaim(claim, this.options);
        try {
          const host = await hostEngine(owner, this.addressFile, this.log);
          return (this.role = { owner, host });
        } catch (error) {
          await owner.close();
          throw error;
        }
      } catch (error) {
        if (!(error instanceof EmbeddedFolderBusy)) throw error;
      }
      if (Date.now() > deadline)
        throw new AnalyticsError(`the ClickHouse folder ${this.options.path} is in use and its owner does not answer`);
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    }
  }

  /** A guest's call; when the host is gone, the owner is looked for again and the call made once more. */
  private async call<T>(asOwner: (engine: EmbeddedEngine) => Promise<T>, asGuest: (address: HostAddress) => Promise<T>): Promise<T> {
    for (;;) {
      const role = await this.current();
      if ('owner' in role) return asOwner(role.owner);
      try {
        return await asGuest(role.guest);
      } catch (error) {
        if (!(error instanceof HostUnreachable)) throw error;
        if (this.role === role) this.role = undefined;
      }
    }
  }

  query<T = Record<string, unknown>>(sql: string, params: QueryParams = {}): Promise<T[]> {
    return this.call(
      (engine) => engine.query<T>(sql, params),
      async (address) => parseJsonEachRow<T>(await callHost(address, { op: 'query', sql, params })),
    );
  }

  command(sql: string, params: QueryParams = {}): Promise<void> {
    return this.call(
      (engine) => engine.command(sql, params),
      async (address) => void (await callHost(address, { op: 'command', sql, params })),
    );
  }

  insert(table: string, jsonEachRow: JsonEachRow, options: InsertOptions = {}): Promise<void> {
    return this.call(
      (engine) => engine.insert(table, jsonEachRow, options),
      async (address) => void (await callHost(address, { op: 'insert', table, rows: jsonEachRow, options })),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.finding?.catch(() => undefined);
    const role = this.role;
    this.role = undefined;
    if (this.pendingClaim) releaseEmbedded(this.pendingClaim);
    this.pendingClaim = undefined;
    if (role && 'owner' in role) {
      await role.host.close();
      await role.owner.close();
    }
  }
}

/** Whether a host answers (a file left by a process that was killed names a port nobody serves). */
async function reachable(address: HostAddress): Promise<boolean> {
  try {
    await callHost(address, { op: 'query', sql: 'SELECT 1' });
    return true;
  } catch {
    return false;
  }
}
