export interface PersonalApiKeysTable {
  /** A random public identifier, not the key. */
  id: string;
  user_id: number;
  label: string;
  /** `phx_...abcd`: enough to recognise a key in a list, useless to an attacker. */
  mask_value: string;
  /** `sha256$<hex>` of the raw key; the raw key is never stored. */
  secure_value: string;
  /** JSON array of scopes; `["*"]` grants every scope. */
  scopes: unknown;
  /** JSON array of environment ids the key is limited to, or null. */
  scoped_teams: unknown;
  /** JSON array of organization ids the key is limited to, or null. */
  scoped_organizations: unknown;
  created_at: string;
  last_used_at: string | null;
  /** When the key was last given a new value (the `roll/` action); null if never. */
  last_rolled_at: string | null;
}

export interface AuthTables {
  personal_api_keys: PersonalApiKeysTable;
}
