/** What a load client is asked and what it answers (bench/harness.ts drives the clients, bench/closed-load.ts holds two). */

export interface LoadResult {
  requestsPerSecond: number;
  /**
   * Requests per CPU second of the server process (`serverPid`): on a shared, busy machine wall
   * time swings with the neighbours' load, the CPU a request costs much less.
   */
  requestsPerCpuSecond: number;
  p50: number;
  p90: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** At a set rate through h2load: the 99th percentile of how late a request left after its time, in ms (h2load.ts). */
  lateSendP99?: number;
  /** At a set rate through h2load: the 99th percentile of the latency from each request's due time, in ms (h2load.ts). */
  p99FromDue?: number;
}

export interface LoadOptions {
  url: string;
  method?: 'POST' | 'GET';
  /** One body for every request, or `bodies`, sent in turn. */
  body?: string;
  bodies?: readonly string[];
  connections?: number;
  seconds?: number;
  serverPid?: number | undefined;
  /**
   * Requests per second offered in all, instead of as many as the server answers: independent
   * arrivals (an open model: OPEN_LOAD_CLIENT, whatever the closed-loop client), so the latencies are the
   * server's own, not the queue's: at saturation, 50 connections wait 50 / throughput seconds on
   * average whatever the server does (Little's law).
   */
  rate?: number;
  /** The client of a set rate (OPEN_LOAD_CLIENT when not given). */
  openClient?: OpenLoadClient;
}

export type OpenLoadClient = 'h2load' | 'node';

/** One load client's figures, before the server's CPU is read. */
export type Measured = Omit<LoadResult, 'requestsPerCpuSecond'> & { total: number };
