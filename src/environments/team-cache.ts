import type { Database } from '../platform/db/database.js';
import type { ChangeBus } from '../platform/change-bus.js';
import type { Team } from './models.js';
import { getTeam, getTeamByApiToken } from './tenancy-store.js';

/** Long enough to spare the database on every capture, short enough to heal a missed notice. */
const TTL_MS = 60_000;

/**
 * Environments by project API key, for the public endpoints (capture, decide) that see a token on
 * every request. Entries are dropped when a `team` change is announced, in this process or another.
 */
export class TeamCache {
  private readonly byToken = new Map<string, { team: Team | null; expires: number }>();

  constructor(
    private readonly database: Database,
    private readonly changes: ChangeBus,
  ) {
    changes.on('team', () => this.byToken.clear());
  }

  /**
   * The cached answer for a token without waiting: the environment, null for a token known not to
   * exist, undefined when it has to be read (byApiToken). For decide, which sees a token on every
   * request and would otherwise await a settled promise each time.
   */
  cachedByApiToken(token: string): Team | null | undefined {
    const cached = this.byToken.get(token);
    return cached && cached.expires > Date.now() ? cached.team : undefined;
  }

  async byApiToken(token: string): Promise<Team | undefined> {
    const now = Date.now();
    const cached = this.byToken.get(token);
    if (cached && cached.expires > now) return cached.team ?? undefined;
    const team = (await getTeamByApiToken(this.database.db, token)) ?? null;
    // Unknown tokens are remembered briefly too, so a misconfigured client cannot hammer the database.
    this.byToken.set(token, { team, expires: now + (team ? TTL_MS : 5_000) });
    if (this.byToken.size > 10_000) this.byToken.delete(this.byToken.keys().next().value!);
    return team ?? undefined;
  }

  /** By id: a plain read, for the rare callers that have no token (the local-evaluation feed). */
  async byId(id: number): Promise<Team | undefined> {
    return getTeam(this.database.db, id);
  }

  /** Call after changing an environment; every process drops its cached copies. */
  async invalidate(teamId: number): Promise<void> {
    await this.changes.publish({ topic: 'team', id: teamId });
  }
}
