import cluster from 'node:cluster';
import { startApp, startWorker, type RunningApp, type RunningWorker } from '../app.js';
import { createLogger } from '../platform/logger.js';
import { loadConfig } from '../config.js';
import { joinCluster, runSupervisor } from './serve-cluster.js';
import type { BootstrapResult } from '../environments/bootstrap.js';

function printFirstStart(bootstrap: BootstrapResult, url: string): void {
  const lines = [
    '',
    'Hoglet created its first organization, project and user.',
    `  Project API key (for SDKs):  ${bootstrap.team.apiToken}`,
    `  Personal API key (all scopes, shown only this once):  ${bootstrap.personalApiKey}`,
    '',
    `Set the password of ${bootstrap.user.email} (this link works once, for 7 days):`,
    `  ${url}/reset/${bootstrap.user.uuid}/${bootstrap.setPasswordToken}`,
    `  (later: \`hoglet users set-password --email ${bootstrap.user.email}\`, the password on standard input)`,
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${bootstrap.personalApiKey}" ${url}/api/projects/`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/** A message a person can act on, for the failures that happen before the server runs. */
function describeStartFailure(error: unknown, port: number, host: string): string {
  const err = error as NodeJS.ErrnoException;
  if (err?.code === 'EADDRINUSE') return `port ${port} on ${host} is already in use; set PORT to a free port`;
  if (err?.code === 'EACCES') return `not allowed to listen on ${host}:${port}; choose a PORT above 1023`;
  return err?.message ?? String(error);
}

/**
 * Runs the server until SIGTERM or SIGINT, then shuts down gracefully; with HTTP_PROCESSES > 1 this
 * process supervises that many server processes instead (serve-cluster.ts).
 */
export async function runServe(): Promise<number> {
  const config = loadConfig();
  const log = createLogger(config);
  if (config.httpProcesses > 1 && cluster.isPrimary) return runSupervisor(config, log);
  let running: RunningApp;
  try {
    running = await startApp(config, { log });
  } catch (error) {
    const message = describeStartFailure(error, config.port, config.host);
    log.error({ err: error }, `hoglet could not start: ${message}`);
    process.stderr.write(`hoglet: could not start: ${message}\n`);
    // A cluster's server process would be kept alive by its channel to the supervisor.
    if (cluster.isWorker) process.exit(1);
    return 1;
  }
  if (running.bootstrap) printFirstStart(running.bootstrap, running.url);
  if (cluster.isWorker) joinCluster(running);

  stopOnSignals(log, running, 'shutting down: no new connections, finishing requests in flight');
  return -1;
}

/** `hoglet worker`: process the ingestion queue until SIGTERM or SIGINT. */
export async function runWorker(): Promise<number> {
  const config = loadConfig();
  const log = createLogger(config);
  let running: RunningWorker;
  try {
    running = await startWorker(config, { log });
  } catch (error) {
    const message = describeStartFailure(error, config.port, config.host);
    log.error({ err: error }, `hoglet worker could not start: ${message}`);
    process.stderr.write(`hoglet: could not start the worker: ${message}\n`);
    return 1;
  }
  stopOnSignals(log, running, 'shutting down: finishing the batch in progress');
  return -1;
}

/**
 * Stops gracefully on SIGTERM or SIGINT (exit 0), or when the process cannot go on (`failed`:
 * say why, stop the same way, exit 1).
 */
function stopOnSignals(
  log: ReturnType<typeof createLogger>,
  running: { close(): Promise<void>; failed: Promise<Error> },
  message: string,
): void {
  let stopping = false;
  const stop = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, message);
    running.close().then(
      () => {
        log.info('shutdown complete');
        process.exit(code);
      },
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  void running.failed.then((error) => {
    log.error({ err: error }, `hoglet cannot go on: ${error.message}`);
    process.stderr.write(`hoglet: ${error.message}\n`);
    stop('failure', 1);
  });
}
