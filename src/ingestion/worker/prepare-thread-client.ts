import type { Logger } from 'pino';
import type { GeoipService } from '../../geoip/geoip-service.js';
import { RequestThread, siblingEntry } from '../../platform/request-thread.js';
import type { QueueRecord } from './batch.js';
import type { PreparedRow } from './prepare.js';
import { unpackReply, type PackedRows, type PrepareRequest } from './prepare-messages.js';

/**
 * The worker's second thread: prepares the next batch (prepare.ts, no database) while the worker
 * writes the current one, so a backlog is worked on both cores. Started on first use. If it
 * fails or exits, batches are prepared in the worker's own thread, as they are when nothing is
 * prepared ahead (no event depends on the thread), and a new thread is tried a minute later.
 */
export class PrepareThread {
  private readonly thread: RequestThread<PrepareRequest, PackedRows>;

  constructor(
    private readonly geoip: GeoipService | undefined,
    log: Logger,
  ) {
    this.thread = new RequestThread({
      entry: siblingEntry(import.meta.url, 'prepare-thread'),
      workerData: { geoip: geoip?.shared },
      log,
      name: 'prepare thread',
    });
  }

  /**
   * The rows prepared on the thread (in order), or undefined when the thread is unavailable.
   * `anonymized`: the teams whose environment has `anonymize_ips` now.
   */
  async prepare(rows: QueueRecord[], anonymized: number[]): Promise<PreparedRow[] | undefined> {
    const reply = await this.thread.ask({ rows: rows.map((row) => [Number(row.team_id), row.payload]), anonymized });
    return reply && unpackReply(reply, this.geoip);
  }

  /**
   * Starts the thread (if it is not running) and waits until it answers: loading its code takes
   * a while (longest as TypeScript), which the first batch prepared ahead would otherwise wait.
   * False when no thread could be started.
   */
  async warmUp(): Promise<boolean> {
    return (await this.prepare([], [])) !== undefined;
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
