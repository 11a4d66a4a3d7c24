import type { Database } from '../db/database.js';
import { getMemberships, getTeam } from '../tenancy/store.js';
import { insertPersonalApiKey, type PersonalApiKey } from './keys-store.js';
import { isValidScope } from './scopes.js';

export class KeyInputError extends Error {}

/** PostHog's limit, with its message. */
export const MAX_API_KEYS_PER_USER = 10;

export interface CreateKeyInput {
  userId: number;
  label: string;
  scopes: string[];
  scopedTeams?: number[];
}

/** Creates a personal API key after PostHog's checks on its scopes and projects. */
export async function createPersonalApiKey(
  database: Database,
  input: CreateKeyInput,
): Promise<{ key: PersonalApiKey; rawValue: string }> {
  if (input.scopes.length === 0) throw new KeyInputError('At least one scope is required.');
  for (const scope of input.scopes) if (!isValidScope(scope)) throw new KeyInputError(`Invalid scope: ${scope}`);
  if (input.label.length > 40) throw new KeyInputError('Ensure the label has no more than 40 characters.');
  const memberships = await getMemberships(database.db, input.userId);
  for (const teamId of input.scopedTeams ?? []) {
    const team = await getTeam(database.db, teamId);
    if (!team || !memberships.has(team.organizationId)) {
      throw new KeyInputError('You must be a member of all teams that you are scoping the key to.');
    }
  }
  const existing = await database.db
    .selectFrom('personal_api_keys')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', input.userId)
    .executeTakeFirst();
  if (Number(existing?.n ?? 0) >= MAX_API_KEYS_PER_USER) {
    throw new KeyInputError(
      `You can only have ${MAX_API_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`,
    );
  }
  return insertPersonalApiKey(database.db, {
    userId: input.userId,
    label: input.label,
    scopes: input.scopes,
    scopedTeams: input.scopedTeams ?? null,
  });
}
