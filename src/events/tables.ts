export interface EventsTable {
  team_id: number;
  uuid: string;
  event: string;
  distinct_id: string;
  /** The person's uuid when the event was processed; null for personless events. */
  person_id: string | null;
  properties: unknown;
  timestamp: string;
  created_at: string;
  session_id: string | null;
  elements_chain: string | null;
}

export interface EventsTables {
  events: EventsTable;
}
