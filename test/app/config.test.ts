import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('HTTP_PROCESSES', () => {
  it('defaults to serving from one process', () => {
    expect(loadConfig({}).httpProcesses).toBe(1);
    expect(loadConfig({ HTTP_PROCESSES: ' ' }).httpProcesses).toBe(1);
  });

  it('takes a count, or auto for one process per core', () => {
    expect(loadConfig({ HTTP_PROCESSES: '3' }).httpProcesses).toBe(3);
    expect(loadConfig({ HTTP_PROCESSES: 'auto' }).httpProcesses).toBe(os.availableParallelism());
  });

  it.each(['0', '-1', '1.5', 'two', '257'])('refuses %s with a message naming the setting', (value) => {
    expect(() => loadConfig({ HTTP_PROCESSES: value })).toThrow(ConfigError);
    expect(() => loadConfig({ HTTP_PROCESSES: value })).toThrow(
      `HTTP_PROCESSES must be "auto" or an integer from 1 to 256, got "${value}"`,
    );
  });
});

describe('INGESTION_POLL_MS', () => {
  it('defaults to 200 ms and takes a number of milliseconds', () => {
    expect(loadConfig({}).ingestionPollMs).toBe(200);
    expect(loadConfig({ INGESTION_POLL_MS: '1500' }).ingestionPollMs).toBe(1500);
    expect(loadConfig({}).ingestionLeaseMs).toBe(15_000);
    expect(loadConfig({ INGESTION_LEASE_MS: '2000' }).ingestionLeaseMs).toBe(2000);
    expect(() => loadConfig({ INGESTION_LEASE_MS: '0' })).toThrow(/INGESTION_LEASE_MS/);
    for (const value of ['soon', '0', '-5', '1.5', '2147483648']) {
      expect(() => loadConfig({ INGESTION_POLL_MS: value })).toThrow(
        `INGESTION_POLL_MS must be a whole number of milliseconds from 1 to 2147483647, got "${value}"`,
      );
    }
  });
});

describe('INGESTION_DEDUPE_DAYS', () => {
  it('defaults to 7 days and takes a whole number of days, 0 for forever', () => {
    expect(loadConfig({}).ingestionDedupeDays).toBe(7);
    expect(loadConfig({ INGESTION_DEDUPE_DAYS: '30' }).ingestionDedupeDays).toBe(30);
    expect(loadConfig({ INGESTION_DEDUPE_DAYS: '0' }).ingestionDedupeDays).toBe(0);
    for (const value of ['week', '-1', '1.5']) {
      expect(() => loadConfig({ INGESTION_DEDUPE_DAYS: value })).toThrow(
        `INGESTION_DEDUPE_DAYS must be a whole number of days from 0, got "${value}"`,
      );
    }
  });
});

describe('SESSIONS_MERGE', () => {
  it('is on unless off', () => {
    expect(loadConfig({}).sessionsMerge).toBe(true);
    expect(loadConfig({ SESSIONS_MERGE: 'off' }).sessionsMerge).toBe(false);
    expect(() => loadConfig({ SESSIONS_MERGE: 'no' })).toThrow('SESSIONS_MERGE must be "on" or "off", got "no"');
  });
});

describe('SHUTDOWN_GRACE_MS', () => {
  it('defaults to 10 s and takes a number of milliseconds', () => {
    expect(loadConfig({}).shutdownGraceMs).toBe(10_000);
    expect(loadConfig({ SHUTDOWN_GRACE_MS: '2500' }).shutdownGraceMs).toBe(2500);
    for (const value of ['later', '0', '-1', '0.5']) {
      expect(() => loadConfig({ SHUTDOWN_GRACE_MS: value })).toThrow(
        `SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 1 to 2147483647, got "${value}"`,
      );
    }
  });
});

describe('request bounds', () => {
  it('default to 30 s a request, 72 s of keep-alive, 10,000 connections and 10 MiB recordings', () => {
    expect(loadConfig({})).toMatchObject({
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: 10_000,
      recordingMaxBytes: 10 * 1024 * 1024,
    });
  });

  it('take their settings', () => {
    const config = loadConfig({
      REQUEST_TIMEOUT_MS: '5000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      MAX_CONNECTIONS: '64',
      RECORDING_MAX_BYTES: '2048',
    });
    expect(config).toMatchObject({ requestTimeoutMs: 5000, keepAliveTimeoutMs: 1000, maxConnections: 64, recordingMaxBytes: 2048 });
  });

  it('refuse what is not a positive whole number, naming the setting', () => {
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' })).toThrow(
      'REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647, got "0"',
    );
    for (const value of ['0', '-3', '2.5', 'many']) {
      expect(() => loadConfig({ MAX_CONNECTIONS: value })).toThrow(`MAX_CONNECTIONS must be a whole number from 1, got "${value}"`);
      expect(() => loadConfig({ RECORDING_MAX_BYTES: value })).toThrow(`RECORDING_MAX_BYTES must be a whole number from 1, got "${value}"`);
    }
  });
});
