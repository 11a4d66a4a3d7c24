export interface EventDefinitionsTable {
  id: string;
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
  team_id: number;
  event: string;
  property: string;
}

export interface DefinitionsTables {
  event_definitions: EventDefinitionsTable;
  property_definitions: PropertyDefinitionsTable;
  event_properties: EventPropertiesTable;
}
