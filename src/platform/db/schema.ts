import type { Generated } from 'kysely';
import type { ActivityTables } from '../../activity/tables.js';
import type { AuthTables } from '../../auth/tables.js';
import type { CohortsTables } from '../../cohorts/tables.js';
import type { DefinitionsTables } from '../../definitions/tables.js';
import type { DeletionsTables } from '../../deletions/tables.js';
import type { EarlyAccessTables } from '../../early-access/tables.js';
import type { DashboardsTables } from '../../dashboards/tables.js';
import type { FlagsTables } from '../../flags/tables.js';
import type { EventsTables } from '../../events/tables.js';
import type { GroupsTables } from '../../groups/tables.js';
import type { IngestionTables } from '../../ingestion/tables.js';
import type { InsightsTables } from '../../insights/tables.js';
import type { PersonsTables } from '../../persons/tables.js';
import type { RecordingsTables } from '../../recordings/tables.js';
import type { SubscriptionsTables } from '../../subscriptions/tables.js';
import type { SurveysTables } from '../../surveys/tables.js';
import type { TenancyTables } from '../../environments/tables.js';

/** Shared id allocation (see db/counters.ts). */
export interface CountersTable {
  name: string;
  value: number;
}

/** Cache-invalidation notices between SQLite processes (see lib/change-bus.ts). */
export interface ChangeNoticesTable {
  id: Generated<number>;
  origin: string;
  topic: string;
  item_id: string;
  created_at: string;
}

/** Every table Hoglet has, for Kysely's typing. Each feature declares its own tables. */
export interface Schema
  extends
    TenancyTables,
    AuthTables,
    IngestionTables,
    EventsTables,
    PersonsTables,
    GroupsTables,
    FlagsTables,
    CohortsTables,
    ActivityTables,
    InsightsTables,
    DashboardsTables,
    SubscriptionsTables,
    RecordingsTables,
    DeletionsTables,
    DefinitionsTables,
    SurveysTables,
    EarlyAccessTables {
  counters: CountersTable;
  change_notices: ChangeNoticesTable;
}
