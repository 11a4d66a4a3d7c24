import { sql, type Kysely, type RawBuilder } from 'kysely';
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

/**
 * The rows of one project that share a key (`over`), and their order (`rank`): the primary
 * environment's first, then by environment id.
 */
interface Collision {
  over: RawBuilder<unknown>;
  rank: RawBuilder<unknown>;
}

/** How a merged row's column is taken from the rows that collide. */
type Merge = (column: RawBuilder<unknown>, rows: Collision) => RawBuilder<unknown>;

const earliest: Merge = (column, { over }) => sql`min(${column}) over (${over})`;
const latest: Merge = (column, { over }) => sql`max(${column}) over (${over})`;
/** The value of the first row by rank where `missing` is false; of the first row when it is true for all. */
const firstPresent =
  (missing: RawBuilder<unknown>): Merge =>
  (column, { over, rank }) =>
    sql`first_value(${column}) over (${over} order by case when ${missing} then 1 else 0 end, ${rank})`;

/**
 * Fills `into` with `from`'s rows, one per project and `key`: the first row by rank keeps its
 * `kept` columns (the key among them); each `merged` column is taken from all the rows that share
 * the key.
 */
async function insertMerged(
  db: Kysely<any>,
  from: string,
  into: string,
  key: readonly string[],
  kept: readonly string[],
  merged: Readonly<Record<string, Merge>>,
): Promise<void> {
  const ref = (column: string) => sql.ref(`r.${column}`);
  const rows: Collision = {
    over: sql`partition by r.project_id, ${sql.join(key.map(ref))}`,
    rank: sql`r.not_primary, r.team_id`,
  };
  const columns = sql.join([...kept, ...Object.keys(merged)].map((c) => sql.ref(c)));
  const picked = [
    ...kept.map(ref),
    sql`row_number() over (${rows.over} order by ${rows.rank}) as n`,
    ...Object.entries(merged).map(([column, merge]) => sql`${merge(ref(column), rows)} as ${sql.ref(column)}`),
  ];
  await sql`insert into ${sql.table(into)} (${columns})
    select ${columns} from (
      select ${sql.join(picked)}
      from ${ranked(from)} r
    ) merged where n = 1`.execute(db);
}

const described = firstPresent(sql`coalesce(r.description, '') = ''`);
const tagged = firstPresent(sql`r.tags = '[]'`);

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
  await insertMerged(db, 'event_definitions', 'event_definitions_027', ['name'], ['id', 'project_id', 'team_id', 'name'], {
    created_at: earliest,
    last_seen_at: latest,
    description: described,
    tags: tagged,
  });
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
  // The type and its is_numerical come from one row: the first that has a type.
  const typed = firstPresent(sql`r.property_type is null`);
  await insertMerged(
    db,
    'property_definitions',
    'property_definitions_027',
    ['type', 'group_type_index', 'name'],
    ['id', 'project_id', 'team_id', 'name', 'type', 'group_type_index'],
    { property_type: typed, is_numerical: typed, description: described, tags: tagged },
  );
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
  await insertMerged(
    db,
    'event_properties',
    'event_properties_027',
    ['event', 'property'],
    ['project_id', 'team_id', 'event', 'property'],
    {},
  );
  await db.schema.dropTable('event_properties').execute();
  await db.schema.alterTable('event_properties_027').renameTo('event_properties').execute();
  await db.schema.createIndex('event_properties_project_property_idx').on('event_properties').columns(['project_id', 'property']).execute();
  await db.schema.createIndex('event_properties_team_idx').on('event_properties').column('team_id').execute();
}
