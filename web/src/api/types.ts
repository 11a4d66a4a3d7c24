/** The shapes of Hoglet's (PostHog's) API answers the app reads: only the fields it uses. */

export interface TeamBasic {
  id: number;
  uuid: string;
  organization: string;
  project_id: number;
  api_token: string;
  name: string;
  ingested_event: boolean;
  timezone: string;
}

export interface OrganizationBasic {
  id: string;
  name: string;
  membership_level?: number | null;
}

export interface Me {
  id: number;
  uuid: string;
  email: string;
  first_name: string;
  last_name: string;
  team: TeamBasic | null;
  organization: OrganizationBasic | null;
  organizations: OrganizationBasic[];
}

/** An event as EventsQuery's `*` column gives it. */
export interface EventRow {
  uuid: string;
  event: string;
  properties: Record<string, unknown>;
  timestamp: string;
  distinct_id: string;
  elements_chain: string;
  created_at: string;
}

export interface EventsQueryResponse<Row = unknown[]> {
  columns: string[];
  types: string[];
  results: Row[];
  hasMore: boolean;
}

/** PostHog's property filter (an event property, or the event's own `distinct_id`). */
export interface PropertyFilter {
  key: string;
  operator: string;
  value?: string | number | boolean | Array<string | number> | null;
  type: 'event' | 'event_metadata';
}
