import type { Database } from '../platform/db/database.js';
import { nextCounterValue } from '../platform/db/counters.js';
import { insertPersonalApiKey } from '../auth/keys-store.js';
import { createPasswordToken, FIRST_USER_TOKEN_AGE_MS } from '../auth/password-service.js';
import { createPrimaryDashboard } from '../dashboards/default-dashboard-store.js';
import { generateProjectApiToken } from '../auth/tokens.js';
import { MembershipLevel, type Organization, type Project, type Team, type User } from './models.js';
import { countOrganizations, insertMembership, insertOrganization, insertProjectWithTeam, insertUser } from './tenancy-store.js';
import { defaultTeamSettings } from './team-fields.js';
import { setPrimaryDashboard } from './store.js';

export interface BootstrapResult {
  organization: Organization;
  project: Project;
  team: Team;
  user: User;
  /** The first personal API key, all scopes: shown once, never stored in clear. */
  personalApiKey: string;
  /** A one-time token that sets the first user's password (`/reset/<user uuid>/<token>`): shown once, stored hashed. */
  setPasswordToken: string;
}

export interface BootstrapOptions {
  email: string;
  personalApiKey?: string | undefined;
}

/**
 * On an empty database: an organization, its "Default project" with a first environment and a
 * project API key, an owner, and a personal API key with every scope. Several processes may start
 * at once on one PostgreSQL: the counter update is taken first, as a lock, so exactly one of them
 * creates the data and the others find it.
 */
export async function bootstrapIfEmpty(database: Database, options: BootstrapOptions): Promise<BootstrapResult | null> {
  return database.db.transaction().execute(async (trx) => {
    await nextCounterValue(trx, 'bootstrap');
    if ((await countOrganizations(trx)) > 0) return null;
    const organization = await insertOrganization(trx, 'Hoglet');
    const { project, team: created } = await insertProjectWithTeam(trx, {
      organizationId: organization.id,
      name: 'Default project',
      apiToken: generateProjectApiToken(),
      settings: defaultTeamSettings([options.email]),
    });
    const team = await setPrimaryDashboard(trx, created, await createPrimaryDashboard(trx, created.id));
    const user = await insertUser(trx, {
      email: options.email,
      firstName: 'Admin',
      currentOrganizationId: organization.id,
      currentTeamId: team.id,
    });
    await insertMembership(trx, organization.id, user.id, MembershipLevel.owner);
    const { rawValue } = await insertPersonalApiKey(trx, {
      userId: user.id,
      label: 'Bootstrap key',
      scopes: ['*'],
      ...(options.personalApiKey ? { rawValue: options.personalApiKey } : {}),
    });
    const setPasswordToken = await createPasswordToken(trx, user.id, FIRST_USER_TOKEN_AGE_MS);
    return { organization, project, team, user, personalApiKey: rawValue, setPasswordToken };
  });
}
