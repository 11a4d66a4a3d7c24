/**
 * The stages of an early access feature and what each does to its flag (PostHog's
 * EarlyAccessFeature.Stage and the serializer's `_set_enrollment_filters`): in an active stage
 * (alpha, beta, general availability) the flag carries `feature_enrollment: true`, so a person
 * whose `$feature_enrollment/<flag key>` property is true gets it; leaving the active stages
 * clears it. The legacy `super_groups` condition is dropped whenever the enrollment is written.
 */
export const STAGES = ['draft', 'concept', 'alpha', 'beta', 'general-availability', 'archived'] as const;
export type Stage = (typeof STAGES)[number];

/** Stages in which opted-in persons get the flag (concept only gauges interest). */
export const ACTIVE_STAGES: readonly Stage[] = ['alpha', 'beta', 'general-availability'];

/** What posthog-js is sent when it names no stage. */
export const DEFAULT_PUBLIC_STAGES: readonly Stage[] = ['beta'];

export const isActiveStage = (stage: string | undefined): boolean =>
  stage !== undefined && (ACTIVE_STAGES as readonly string[]).includes(stage);

type Json = Record<string, unknown>;

/** The flag filters with the enrollment set (`true`) or cleared (`null`), `super_groups` removed. */
export function enrollmentFilters(existing: Json, enrolled: true | null, overrides: Json = {}): Json {
  const filters: Json = { ...existing, feature_enrollment: enrolled, ...overrides };
  delete filters.super_groups;
  return filters;
}

/** The filters of the flag an early access feature creates: nobody gets it but the enrolled. */
export function newFlagFilters(stage: Stage): Json {
  const filters: Json = { groups: [{ properties: [], rollout_percentage: 0, variant: null }] };
  if (isActiveStage(stage)) filters.feature_enrollment = true;
  return filters;
}

/**
 * What a PATCH that sends `stage` does to the linked flag's filters, in PostHog's order: to
 * general availability with `rollout_to_all`, everyone gets the flag; into the active stages, the
 * enrolled get it; any inactive stage clears the enrollment (even if the stage is unchanged).
 * Undefined: the flag is left alone (a move between active stages, or no stage sent).
 * `validated`: PostHog saves through the flag serializer (validation, version) rather than directly.
 */
export function stageChangeFilters(
  flagFilters: Json,
  from: Stage,
  to: Stage | undefined,
  rolloutToAll: boolean,
): { filters: Json; validated: boolean } | undefined {
  if (to === undefined) return undefined;
  if (from !== to && to === 'general-availability' && rolloutToAll) {
    return { filters: enrollmentFilters(flagFilters, null, { groups: [{ properties: [], rollout_percentage: 100 }] }), validated: true };
  }
  if (!isActiveStage(from) && isActiveStage(to)) return { filters: enrollmentFilters(flagFilters, true), validated: true };
  if (!isActiveStage(to)) return { filters: enrollmentFilters(flagFilters, null), validated: false };
  return undefined;
}

/** Python's truthiness of a JSON value (`initial_data.get("rollout_to_all", False)`). */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/**
 * Django's `slugify` (allow_unicode=False): NFKD to ASCII, drop what is not a word character,
 * space or hyphen, lower-case, then runs of spaces and hyphens become one hyphen, and leading
 * and trailing hyphens and underscores go.
 */
export function slugify(value: string): string {
  const ascii = [...value.normalize('NFKD')].filter((c) => c.charCodeAt(0) < 0x80).join('');
  const cleaned = ascii.replace(/[^\w\s-]/g, '').toLowerCase();
  return cleaned.replace(/[-\s]+/g, '-').replace(/^[-_]+|[-_]+$/g, '');
}

/**
 * Django's URLValidator, closely: an http(s) or ftp(s) scheme, a host (a dotted domain with a
 * top-level label, `localhost`, an IPv4 or a bracketed IPv6 address), an optional port, and no
 * whitespace.
 */
export function isValidUrl(value: string): boolean {
  if (/\s/.test(value) || value.length > 2048) return false;
  const match = /^(https?|ftps?):\/\/(?:[^\s:@/]+(?::[^\s@/]*)?@)?([^/?#:]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?(?:[/?#]\S*)?$/i.exec(value);
  if (!match) return false;
  const host = match[2]!;
  if (host.startsWith('[')) return true;
  if (host.toLowerCase() === 'localhost') return true;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return host.split('.').every((part) => Number(part) <= 255);
  const labels = host.replace(/\.$/, '').split('.');
  if (labels.length < 2) return false;
  const label = /^[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?$/i;
  const tld = labels[labels.length - 1]!;
  return labels.every((l) => label.test(l)) && (/^[a-z\u00a1-\uffff-]{2,63}$/i.test(tld) || /^xn--[a-z0-9]{1,59}$/i.test(tld));
}
