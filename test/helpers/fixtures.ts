import { insertPersonalApiKey } from '../../src/auth/keys-store.js';
import { generateProjectApiToken } from '../../src/auth/tokens.js';
import type { Database } from '../../src/platform/db/database.js';
import { insertOrganization, insertProjectWithTeam } from '../../src/environments/tenancy-store.js';
import { defaultTeamSettings } from '../../src/environments/team-fields.js';

/** A further project (with its first environment) in an organization. */
export async function createProject(database: Database, organizationId: string, name = 'Second project') {
  return database.db.transaction().execute((trx) =>
    insertProjectWithTeam(trx, {
      organizationId,
      name,
      apiToken: generateProjectApiToken(),
      settings: defaultTeamSettings(),
    }),
  );
}

/** An organization the bootstrap user is not a member of, with one project. */
export async function createForeignOrganization(database: Database) {
  const organization = await insertOrganization(database.db, 'Someone else');
  const { project, team } = await createProject(database, organization.id, 'Their project');
  return { organization, project, team };
}

export async function createKey(
  database: Database,
  userId: number,
  scopes: string[],
  scopedTeams: number[] | null = null,
): Promise<string> {
  const { rawValue } = await insertPersonalApiKey(database.db, { userId, label: 'test', scopes, scopedTeams });
  return rawValue;
}
