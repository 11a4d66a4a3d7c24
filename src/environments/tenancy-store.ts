import { randomUUID } from 'node:crypto';
import type { DialectName } from '../platform/db/database.js';
import type { Kysely, Selectable } from 'kysely';
import { nextCounterValue } from '../platform/db/counters.js';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, nowIso, toJson } from '../platform/db/values.js';
import { uuidv7 } from '../lib/uuid.js';
import type { Organization, Project, Team, User } from './models.js';
import { withDefaults, type TeamSettings } from './team-fields.js';
import type { TeamsTable, UsersTable } from './tables.js';

type Db = Kysely<Schema>;

function toTeam(row: Selectable<TeamsTable>): Team {
  return {
    id: Number(row.id),
    uuid: row.uuid,
    organizationId: row.organization_id,
    projectId: Number(row.project_id),
    name: row.name,
    apiToken: row.api_token,
    secretApiToken: row.secret_api_token,
    secretApiTokenBackup: row.secret_api_token_backup,
    settings: withDefaults(fromJson<TeamSettings>(row.settings) ?? {}),
    ingestedEvent: fromBool(row.ingested_event),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toUser(row: Selectable<UsersTable>): User {
  return {
    id: Number(row.id),
    uuid: row.uuid,
    distinctId: row.distinct_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    isActive: fromBool(row.is_active),
    isStaff: fromBool(row.is_staff),
    isEmailVerified: fromBool(row.is_email_verified),
    currentOrganizationId: row.current_organization_id,
    currentTeamId: row.current_team_id === null ? null : Number(row.current_team_id),
    roleAtOrganization: row.role_at_organization,
    dateJoined: row.date_joined,
  };
}

function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'organization'
  );
}

export async function countOrganizations(db: Db): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertOrganization(db: Db, name: string): Promise<Organization> {
  const now = nowIso();
  const id = uuidv7();
  const slug = `${slugify(name)}-${id.slice(-6)}`;
  await db.insertInto('organizations').values({ id, name, slug, created_at: now, updated_at: now }).execute();
  return { id, name, slug, createdAt: now, updatedAt: now };
}

export async function getOrganization(db: Db, id: string): Promise<Organization | undefined> {
  const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  return row && { id: row.id, name: row.name, slug: row.slug, createdAt: row.created_at, updatedAt: row.updated_at };
}

export interface NewTeam {
  organizationId: string;
  name: string;
  apiToken: string;
  settings: TeamSettings;
}

/**
 * Creates a project together with its first environment; both get the same id, as in PostHog.
 * Runs inside the caller's transaction.
 */
export async function insertProjectWithTeam(trx: Db, team: NewTeam): Promise<{ project: Project; team: Team }> {
  const id = await nextCounterValue(trx, 'team');
  const now = nowIso();
  await trx.insertInto('projects').values({ id, organization_id: team.organizationId, name: team.name, created_at: now }).execute();
  const created = await insertTeamRow(trx, id, id, team, now);
  return { project: { id, organizationId: team.organizationId, name: team.name, createdAt: now }, team: created };
}

/** A further environment of an existing project. */
export async function insertTeam(trx: Db, projectId: number, team: NewTeam): Promise<Team> {
  const id = await nextCounterValue(trx, 'team');
  return insertTeamRow(trx, id, projectId, team, nowIso());
}

async function insertTeamRow(trx: Db, id: number, projectId: number, team: NewTeam, now: string): Promise<Team> {
  const row = await trx
    .insertInto('teams')
    .values({
      id,
      uuid: uuidv7(),
      organization_id: team.organizationId,
      project_id: projectId,
      name: team.name,
      api_token: team.apiToken,
      secret_api_token: null,
      secret_api_token_backup: null,
      settings: toJson(team.settings),
      ingested_event: false,
      created_at: now,
      updated_at: now,
      demo_data_status: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toTeam(row);
}

export async function getTeam(db: Db, id: number): Promise<Team | undefined> {
  const row = await db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toTeam(row);
}

/**
 * The environment as it is now, for a change computed from its current values: locked until the
 * transaction ends on PostgreSQL (SQLite's write transactions hold the whole database already).
 */
export async function lockTeam(db: Db, dialect: DialectName, id: number): Promise<Team | undefined> {
  const query = db.selectFrom('teams').selectAll().where('id', '=', id);
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  return row && toTeam(row);
}

/**
 * Stored tokens never hold a NUL (PostgreSQL's text cannot), so a token with one names no
 * environment; it is not sent to the database, which would fail the query instead.
 */
const holdsNul = (text: string) => text.includes('\u0000');

export async function getTeamByApiToken(db: Db, apiToken: string): Promise<Team | undefined> {
  if (holdsNul(apiToken)) return undefined;
  const row = await db.selectFrom('teams').selectAll().where('api_token', '=', apiToken).executeTakeFirst();
  return row && toTeam(row);
}

/** The environment whose current or backup project secret API key this is. */
export async function getTeamBySecretApiToken(db: Db, secretToken: string): Promise<Team | undefined> {
  if (holdsNul(secretToken)) return undefined;
  const row = await db
    .selectFrom('teams')
    .selectAll()
    .where((eb) => eb.or([eb('secret_api_token', '=', secretToken), eb('secret_api_token_backup', '=', secretToken)]))
    .executeTakeFirst();
  return row && toTeam(row);
}

export interface TeamListFilter {
  organizationIds: string[];
  /** Only these environments (a key limited to some projects). */
  teamIds?: number[] | undefined;
  /** Only the environments of this project. */
  projectId?: number;
  /** Only projects' first environments (id == project id): the project list. */
  primaryOnly?: boolean;
}

/** Environments the filter allows, oldest first, paginated. */
export async function listTeams(
  db: Db,
  filter: TeamListFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; teams: Team[] }> {
  if (filter.organizationIds.length === 0 || filter.teamIds?.length === 0) return { count: 0, teams: [] };
  let query = db.selectFrom('teams').where('organization_id', 'in', filter.organizationIds);
  if (filter.primaryOnly) query = query.whereRef('teams.id', '=', 'teams.project_id');
  if (filter.projectId !== undefined) query = query.where('project_id', '=', filter.projectId);
  if (filter.teamIds) query = query.where('id', 'in', filter.teamIds);
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute();
  return { count: Number(total?.n ?? 0), teams: rows.map(toTeam) };
}

export async function listProjects(db: Db): Promise<Array<Project & { apiToken: string }>> {
  const rows = await db
    .selectFrom('projects')
    .innerJoin('teams', 'teams.id', 'projects.id')
    .select(['projects.id', 'projects.organization_id', 'projects.name', 'projects.created_at', 'teams.api_token'])
    .orderBy('projects.id')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    organizationId: r.organization_id,
    name: r.name,
    createdAt: r.created_at,
    apiToken: r.api_token,
  }));
}

export interface NewUser {
  email: string;
  firstName?: string;
  lastName?: string;
  currentOrganizationId: string;
  currentTeamId: number;
}

export async function insertUser(db: Db, user: NewUser): Promise<User> {
  const row = await db
    .insertInto('users')
    .values({
      uuid: uuidv7(),
      distinct_id: uuidv7(),
      first_name: user.firstName ?? '',
      last_name: user.lastName ?? '',
      email: user.email,
      is_active: true,
      is_staff: false,
      is_email_verified: false,
      current_organization_id: user.currentOrganizationId,
      current_team_id: user.currentTeamId,
      role_at_organization: null,
      date_joined: nowIso(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toUser(row);
}

export async function getUser(db: Db, id: number): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

export async function getUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  return row && toUser(row);
}

export async function insertMembership(db: Db, organizationId: string, userId: number, level: number): Promise<void> {
  const now = nowIso();
  await db
    .insertInto('organization_memberships')
    .values({ organization_id: organizationId, user_id: userId, level, joined_at: now, uuid: randomUUID(), updated_at: now })
    .execute();
}

/** The user's memberships: organization id → level. */
export async function getMemberships(db: Db, userId: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom('organization_memberships').select(['organization_id', 'level']).where('user_id', '=', userId).execute();
  return new Map(rows.map((r) => [r.organization_id, Number(r.level)]));
}

export async function listOrganizationsOfUser(db: Db, userId: number) {
  return db
    .selectFrom('organization_memberships')
    .innerJoin('organizations', 'organizations.id', 'organization_memberships.organization_id')
    .select(['organizations.id', 'organizations.name', 'organizations.slug', 'organizations.created_at', 'organization_memberships.level'])
    .where('organization_memberships.user_id', '=', userId)
    .orderBy('organizations.created_at')
    .execute();
}

export async function memberEmails(db: Db, organizationId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('organization_memberships')
    .innerJoin('users', 'users.id', 'organization_memberships.user_id')
    .select('users.email')
    .where('organization_memberships.organization_id', '=', organizationId)
    .orderBy('organization_memberships.joined_at')
    .execute();
  return rows.map((r) => r.email);
}
