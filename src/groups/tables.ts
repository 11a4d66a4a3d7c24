export interface GroupTypeMappingsTable {
  team_id: number;
  group_type: string;
  group_type_index: number;
  name_singular: string | null;
  name_plural: string | null;
}

export interface GroupsTable {
  team_id: number;
  group_type_index: number;
  group_key: string;
  group_properties: unknown;
  created_at: string;
  version: number;
}

export interface GroupsTables {
  group_type_mappings: GroupTypeMappingsTable;
  groups: GroupsTable;
}
