/**
 * PostHog's personal API key scopes: `<object>:<read|write>` or `*`. `x:write` implies `x:read`,
 * never the reverse; `*` grants every declared scope.
 */
export const SCOPE_OBJECTS = [
  'action',
  'activity_log',
  'annotation',
  'batch_export',
  'cohort',
  'dashboard',
  'dashboard_template',
  'early_access_feature',
  'event_definition',
  'experiment',
  'export',
  'feature_flag',
  'group',
  'hog_function',
  'insight',
  'notebook',
  'organization',
  'organization_member',
  'person',
  'plugin',
  'project',
  'property_definition',
  'query',
  'session_recording',
  'session_recording_playlist',
  'sharing_configuration',
  'subscription',
  'survey',
  'user',
  'webhook',
] as const;

export type ScopeObject = (typeof SCOPE_OBJECTS)[number];
export type Scope = `${ScopeObject}:${'read' | 'write'}`;

const OBJECTS = new Set<string>(SCOPE_OBJECTS);

export function isValidScope(scope: string): boolean {
  if (scope === '*') return true;
  const [object, action, ...rest] = scope.split(':');
  return rest.length === 0 && OBJECTS.has(object ?? '') && (action === 'read' || action === 'write');
}

/** Every scope there is, for listing and for tests. */
export function allScopes(): Scope[] {
  return SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`] as Scope[]);
}

export function keyGrantsScope(keyScopes: readonly string[], required: string): boolean {
  if (keyScopes.includes('*') || keyScopes.includes(required)) return true;
  const [object, action] = required.split(':');
  return action === 'read' && keyScopes.includes(`${object}:write`);
}
