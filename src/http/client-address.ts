/**
 * The client address of a request, exactly as fastify's `request.ip` computes it for the
 * server's `trustProxy` setting: the same trust rule (`trustProxyOption`, given to fastify in
 * server.ts) read through the same library fastify uses (@fastify/proxy-addr). The fast lane
 * answers capture and decide without fastify, so it needs the same answer from the same setting:
 *
 * - `false`: the socket's peer, X-Forwarded-For ignored;
 * - `true`: every hop trusted, so the first (leftmost) X-Forwarded-For entry;
 * - a hop count `n`: the peer and the `n - 1` nearest entries are proxies;
 * - addresses/CIDRs (comma-separated, also `loopback`, `linklocal`, `uniquelocal`): hops are
 *   trusted while they fall in those ranges.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

export type ClientAddressOf = (request: IncomingMessage) => string | undefined;

/** The `trustProxy` option fastify gets: a hop count trusts that many proxies in front of Hoglet. */
export function trustProxyOption(value: boolean | number | string): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address: string, hop: number) => hop < value : value;
}

export function clientAddressResolver(trustProxy: boolean | number | string): ClientAddressOf {
  if (trustProxy === false) return (request) => request.socket.remoteAddress;
  const option = trustProxyOption(trustProxy);
  // As fastify turns its option into a trust function (invalid addresses throw here, at start-up).
  const trusts =
    typeof option === 'function'
      ? option
      : option === true
        ? () => true
        : proxyAddr.compile(
            String(option)
              .split(',')
              .map((entry) => entry.trim()),
          );
  return (request) => {
    const chain = proxyAddr.all(request, trusts);
    return chain[chain.length - 1];
  };
}
