export interface EventDefinitionsTable {
  id: string;
  /** The project the definition belongs to (027-definitions-per-project): unique per project. */
  project_id: number;
  /** The environment whose event first made the row. */
  team_id: number;
  name: string;
  created_at: string;
  last_seen_at: string | null;
  description: string | null;
  /** JSON list of tag names. */
  tags: string;
}

export interface PropertyDefinitionsTable {
  id: string;
  project_id: number;
  /** The environment whose event first made the row. */
  team_id: number;
  name: string;
  /** 1 event, 2 person, 3 group (PostHog's PropertyDefinition.Type). */
  type: number;
  /** The group type's index for group properties, -1 otherwise. */
  group_type_index: number;
  property_type: string | null;
  is_numerical: boolean | number;
  description: string | null;
  tags: string;
}

export interface EventPropertiesTable {
  project_id: number;
  /** The environment whose event first made the row. */
  team_id: number;
  event: string;
  property: string;
}

export interface DefinitionsTables {
  event_definitions: EventDefinitionsTable;
  property_definitions: PropertyDefinitionsTable;
  event_properties: EventPropertiesTable;
}
