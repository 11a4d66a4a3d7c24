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

/** A browser session (the `sessionid` cookie). Only the cookie value's hash is stored. */
export interface UserSessionsTable {
  /** `sha256` hex of the cookie value. */
  token_hash: string;
  user_id: number;
  created_at: string;
  /** Refreshed at most once an hour; the session slides while it is used. */
  last_seen_at: string;
  expires_at: string;
}

/** A one-time token that sets a user's password (first start, reset e-mail). Hash only; deleted when used. */
export interface PasswordTokensTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
}

/** Failed logins per e-mail and per client address, counted in fixed windows (auth/throttle-store.ts). */
export interface LoginFailuresTable {
  key: string;
  failures: number;
  window_started_at: string;
}

/** PostHog's OrganizationInvite: the id is the link's secret (`/signup/<id>`). */
export interface OrganizationInvitesTable {
  id: string;
  organization_id: string;
  target_email: string;
  first_name: string;
  level: number;
  message: string | null;
  emailing_attempt_made: boolean | number;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface AuthTables {
  personal_api_keys: PersonalApiKeysTable;
  user_sessions: UserSessionsTable;
  password_tokens: PasswordTokensTable;
  login_failures: LoginFailuresTable;
  organization_invites: OrganizationInvitesTable;
}
