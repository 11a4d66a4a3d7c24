import { sql, type Kysely } from 'kysely';
import type { ColumnTypes, HogletMigration } from './column-types.js';

/**
 * Event and property definitions belong to the project, as PostHog keeps them (`project_id` on
 * posthog_eventdefinition, posthog_propertydefinition and posthog_eventproperty, unique per
 * project): every environment of a project reads and writes one list. `team_id` stays: the
 * environment whose event first made the row (PostHog keeps it too).
 *
 * The three tables are rebuilt (SQLite cannot drop a table's unique constraint): each row gets its
 * environment's project; rows of several environments of one project that now share a key are
 * merged into one:
 * - the row kept (its id and team_id) is the primary environment's (teams.id = project_id) if it
 *   has one, else the lowest environment id's;
 * - created_at the earliest, last_seen_at the latest;
 * - description and tags: the first non-empty one in that same order (primary first);
 * - property_type (with its is_numerical): the primary's, else the first non-null one.
 * A row whose environment is gone keeps its team_id as its project id (PostHog's
 * `coalesce(project_id, team_id)`).
 *
 * The whole migration runs in one transaction: an interrupted run leaves the old tables as they
 * were, and it runs once (hoglet_migrations).
 */
export const definitionsPerProject: HogletMigration = {
  name: '027-definitions-per-project',
  async up(db, t) {
    await rebuildEventDefinitions(db, t);
    await rebuildPropertyDefinitions(db, t);
    await rebuildEventProperties(db, t);
  },
};

/** Each old row with its project id and its environment's rank (the primary first). */
function ranked(table: string) {
  return sql`(select d.*, coalesce(tm.project_id, d.team_id) as project_id,
      case when tm.id = tm.project_id then 0 else 1 end as not_primary
    from ${sql.table(table)} d left join teams tm on tm.id = d.team_id)`;
}

async function rebuildEventDefinitions(db: Kysely<any>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('event_definitions_027')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', t.bigint, (c) => c.notNull())
    .addColumn('team_id', t.bigint, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', t.timestamp)
    .addColumn('description', 'text')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addUniqueConstraint('event_definitions_project_name', ['project_id', 'name'])
    .execute();
  const key = sql`partition by r.project_id, r.name`;
  const rank = sql`r.not_primary, r.team_id`;
  await sql`insert into event_definitions_027 (id, project_id, team_id, name, created_at, last_seen_at, description, tags)
    select id, project_id, team_id, name, created_at, last_seen_at, description, tags from (
      select r.id, r.project_id, r.team_id, r.name,
        row_number() over (${key} order by ${rank}) as n,
        min(r.created_at) over (${key}) as created_at,
        max(r.last_seen_at) over (${key}) as last_seen_at,
        first_value(r.description) over (${key} order by case when coalesce(r.description, '') = '' then 1 else 0 end, ${rank}) as description,
        first_value(r.tags) over (${key} order by case when r.tags = '[]' then 1 else 0 end, ${rank}) as tags
      from ${ranked('event_definitions')} r
    ) merged where n = 1`.execute(db);
  await db.schema.dropTable('event_definitions').execute();
  await db.schema.alterTable('event_definitions_027').renameTo('event_definitions').execute();
  if (t.dialect === 'postgres')
    await sql`alter table event_definitions rename constraint event_definitions_027_pkey to event_definitions_pkey`.execute(db);
  // An environment's rows: what deleting an environment re-points or deletes.
  await db.schema.createIndex('event_definitions_team_idx').on('event_definitions').column('team_id').execute();
}

async function rebuildPropertyDefinitions(db: Kysely<any>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('property_definitions_027')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', t.bigint, (c) => c.notNull())
    .addColumn('team_id', t.bigint, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('group_type_index', 'integer', (c) => c.notNull())
    .addColumn('property_type', 'text')
    .addColumn('is_numerical', t.bool, (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addUniqueConstraint('property_definitions_project_kind_name', ['project_id', 'type', 'group_type_index', 'name'])
    .execute();
  const key = sql`partition by r.project_id, r.type, r.group_type_index, r.name`;
  const rank = sql`r.not_primary, r.team_id`;
  const typed = sql`order by case when r.property_type is null then 1 else 0 end, ${rank}`;
  await sql`insert into property_definitions_027
      (id, project_id, team_id, name, type, group_type_index, property_type, is_numerical, description, tags)
    select id, project_id, team_id, name, type, group_type_index, property_type, is_numerical, description, tags from (
      select r.id, r.project_id, r.team_id, r.name, r.type, r.group_type_index,
        row_number() over (${key} order by ${rank}) as n,
        first_value(r.property_type) over (${key} ${typed}) as property_type,
        first_value(r.is_numerical) over (${key} ${typed}) as is_numerical,
        first_value(r.description) over (${key} order by case when coalesce(r.description, '') = '' then 1 else 0 end, ${rank}) as description,
        first_value(r.tags) over (${key} order by case when r.tags = '[]' then 1 else 0 end, ${rank}) as tags
      from ${ranked('property_definitions')} r
    ) merged where n = 1`.execute(db);
  await db.schema.dropTable('property_definitions').execute();
  await db.schema.alterTable('property_definitions_027').renameTo('property_definitions').execute();
  if (t.dialect === 'postgres')
    await sql`alter table property_definitions rename constraint property_definitions_027_pkey to property_definitions_pkey`.execute(db);
  await db.schema.createIndex('property_definitions_team_idx').on('property_definitions').column('team_id').execute();
}

async function rebuildEventProperties(db: Kysely<any>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('event_properties_027')
    .addColumn('project_id', t.bigint, (c) => c.notNull())
    .addColumn('team_id', t.bigint, (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('property', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_properties_project_pkey', ['project_id', 'event', 'property'])
    .execute();
  await sql`insert into event_properties_027 (project_id, team_id, event, property)
    select project_id, team_id, event, property from (
      select r.project_id, r.team_id, r.event, r.property,
        row_number() over (partition by r.project_id, r.event, r.property order by r.not_primary, r.team_id) as n
      from ${ranked('event_properties')} r
    ) merged where n = 1`.execute(db);
  await db.schema.dropTable('event_properties').execute();
  await db.schema.alterTable('event_properties_027').renameTo('event_properties').execute();
  await db.schema.createIndex('event_properties_project_property_idx').on('event_properties').columns(['project_id', 'property']).execute();
  await db.schema.createIndex('event_properties_team_idx').on('event_properties').column('team_id').execute();
}
