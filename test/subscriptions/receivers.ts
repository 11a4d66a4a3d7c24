import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseAllowedHosts, type AllowedHosts } from '../../src/subscriptions/core/outbound-address.js';

/** The receivers below listen on loopback, which deliveries refuse unless allowed: a server's env, and a Deliverer's option. */
export const LOOPBACK_TARGETS_ENV = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } as const;
export const loopbackTargets = parseAllowedHosts(LOOPBACK_TARGETS_ENV.WEBHOOK_ALLOWED_HOSTS) as AllowedHosts;

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The raw message with quoted-printable soft breaks and escapes undone (good enough for ASCII checks). */
  decoded: string;
}

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A real SMTP server on a loopback port that keeps every message it accepts. */
export async function startSmtp() {
  const messages: ReceivedMail[] = [];
  /** Addresses refused (550) the next time they are used as a recipient. */
  const rejectOnce = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (rejectOnce.delete(address.address)) return callback(new Error('mailbox unavailable'));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject,
          decoded: decodeQuotedPrintable(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    rejectOnce,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ReceivedPost {
  path: string;
  body: any;
  authorization: string | undefined;
}

/** A real HTTP receiver on a loopback port; `failures` makes a path answer 500 that many times first. */
export async function startReceiver() {
  const posts: ReceivedPost[] = [];
  const failures = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const left = failures.get(path) ?? 0;
      if (left > 0) {
        failures.set(path, left - 1);
        res.writeHead(500).end('boom');
        return;
      }
      posts.push({ path, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'), authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    failures,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
