#!/usr/bin/env node
import { parseArgs } from 'node:util';

const USAGE = `Usage: hoglet <command> [options]

Commands:
  serve                         start the server (the default)
  worker                        run only the workers: ingestion, subscription deliveries and
                                background deletions
  keys create --scopes S [--projects IDS] [--label L] [--email E]
                                create a personal API key; S is a comma-separated list of
                                scopes ("*" for all, or e.g. "project:read,feature_flag:write")
  keys list [--email E]         list a user's personal API keys (id, masked value, label, scopes)
  keys revoke --id ID [--email E]
                                revoke one of a user's personal API keys; it stops working at once
  projects list                 list projects with their project API keys
  users create --email E [--first-name N] [--last-name N] [--level member|admin|owner]
               [--organization ID]
                                create a user (a member of the first organization unless
                                told); the password is read from standard input
  users set-password --email E  set a user's password, read from standard input (asked twice,
                                not echoed, on a terminal); the user's sessions end
  users list                    users, whether each has a password, and their last login
  queue status                  events waiting in the ingestion queue, and parked ones, per lane
  queue parked [--limit N]      list parked events (they failed processing repeatedly; kept)
  queue retry [--ids IDS]       put parked events (all, or these queue ids) back in line
  deletions list                background deletions still running (environments' data, persons'
                                events), with their progress; parked ones failed repeatedly
  deletions retry [--ids IDS]   give parked deletions (all, or these ids) another round
  subscriptions deliveries [--id SUBSCRIPTION_ID] [--limit N]
                                subscription deliveries, newest first (all, or one
                                subscription's), each with its target, status and attempts

Configuration comes from the environment; see the README.`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      scopes: { type: 'string' },
      projects: { type: 'string' },
      label: { type: 'string' },
      email: { type: 'string' },
      limit: { type: 'string' },
      ids: { type: 'string' },
      id: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      level: { type: 'string' },
      organization: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command = 'serve', sub] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  // Each command loads only its own modules: a one-shot command starts without the whole server.
  switch (command) {
    case 'serve':
      return (await import('./serve.js')).runServe();
    case 'worker':
      return (await import('./serve.js')).runWorker();
    case 'keys':
      return (await import('./admin-commands.js')).runKeysCommand(sub, values);
    case 'projects':
      return (await import('./admin-commands.js')).runProjectsCommand(sub);
    case 'users':
      return (await import('./users-commands.js')).runUsersCommand(sub, values);
    case 'queue':
      return (await import('./queue-commands.js')).runQueueCommand(sub, values);
    case 'deletions':
      return (await import('./deletions-commands.js')).runDeletionsCommand(sub, values);
    case 'subscriptions':
      return (await import('./subscriptions-commands.js')).runSubscriptionsCommand(sub, values);
    default:
      process.stderr.write(`hoglet: unknown command "${command}"\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // `serve` keeps running until a signal; the other commands end here.
    if (code !== -1) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`hoglet: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
