import { validationError } from '../posthog/errors.js';
import { isValidTimezone } from '../lib/zoned-time.js';
import { readBoolean, serializerData } from '../posthog/fields.js';
import { TEAM_CONFIG_FIELDS, type TeamField } from './team-fields.js';
import { JSON_SETTING_CHECKS, NOT_NULL_JSON_FIELDS } from './json-settings.js';
import { DRF_MESSAGES } from '../posthog/drf-fields.js';

/** Fields a request may not set; PostHog ignores them silently, and so does Hoglet. */
export const READ_ONLY_TEAM_FIELDS = new Set([
  'id',
  'uuid',
  'organization',
  'project_id',
  'api_token',
  'secret_api_token',
  'secret_api_token_backup',
  'created_at',
  'updated_at',
  'ingested_event',
  'effective_membership_level',
  'has_group_types',
  'group_types',
  'default_modifiers',
  'person_on_events_querying_enabled',
  'live_events_token',
  'user_access_level',
  'product_intents',
  'managed_viewsets',
  'access_control_version',
]);

const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;

let timezones: Set<string> | undefined;
/**
 * A name PostHog's timezone choices (pytz's list) hold, as near as Intl can tell: the IANA names
 * the runtime lists, UTC's aliases, and the linked "Area/City" names it resolves.
 */
function isTimezoneChoice(name: string): boolean {
  timezones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC', 'GMT', 'Etc/GMT']);
  return timezones.has(name) || (name.includes('/') && isValidTimezone(name));
}

function readInteger(value: unknown, attr: string): number {
  const n = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw validationError('A valid integer is required.', attr);
  if (n > INT32_MAX) throw validationError(`Ensure this value is less than or equal to ${INT32_MAX}.`, attr, 'max_value');
  if (n < INT32_MIN) throw validationError(`Ensure this value is greater than or equal to ${INT32_MIN}.`, attr, 'min_value');
  return n;
}

function readString(value: unknown, attr: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw validationError('Not a valid string.', attr);
}

function readList(value: unknown, attr: string): unknown[] {
  if (!Array.isArray(value)) throw validationError(DRF_MESSAGES.notAList(value), attr, 'not_a_list');
  return value;
}

/**
 * `session_recording_sample_rate`: DRF DecimalField(max_digits=3, decimal_places=2) between 0 and
 * 1, answered as a string with two decimals ("0.50").
 */
function readSampleRate(value: unknown, attr: string): string {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || !/^\d*\.?\d+$/.test(text)) throw validationError('A valid number is required.', attr);
  const decimals = text.includes('.') ? text.split('.')[1]!.length : 0;
  if (decimals > 2) throw validationError('Ensure that there are no more than 2 decimal places.', attr, 'max_decimal_places');
  const n = Number(text);
  if (n < 0) throw validationError('Ensure this value is greater than or equal to 0.', attr, 'min_value');
  if (n > 1) throw validationError('Ensure this value is less than or equal to 1.', attr, 'max_value');
  return n.toFixed(2);
}

function readField(field: TeamField, value: unknown): unknown {
  const attr = field.name;
  const nullable =
    (field.kind.startsWith('nullable-') || field.kind === 'json' || field.kind === 'decimal-string') && !NOT_NULL_JSON_FIELDS.has(attr);
  if (value === null) {
    if (nullable) return null;
    throw validationError('This field may not be null.', attr, 'null');
  }
  switch (field.kind) {
    case 'boolean':
    case 'nullable-boolean':
      return readBoolean(value, attr);
    case 'integer':
    case 'nullable-integer':
      return readInteger(value, attr);
    case 'string':
    case 'nullable-string':
      return readString(value, attr);
    case 'string-array':
    case 'nullable-string-array':
      return readList(value, attr).map((item, i) => readString(item, `${attr}__${i}`));
    case 'array':
      return readList(value, attr);
    case 'json':
      return value;
    case 'timezone': {
      const name = readString(value, attr);
      if (!isTimezoneChoice(name)) throw validationError(`"${name}" is not a valid choice.`, attr, 'invalid_choice');
      return name;
    }
    case 'decimal-string':
      return readSampleRate(value, attr);
  }
}

/** Rules on single fields beyond their type. */
function checkFieldRules(name: string, value: unknown): void {
  if (name === 'week_start_day' && value !== null && value !== 0 && value !== 1) {
    throw validationError(`"${String(value)}" is not a valid choice.`, name, 'invalid_choice');
  }
  if (name === 'session_recording_minimum_duration_milliseconds' && typeof value === 'number' && (value < 0 || value > 30_000)) {
    throw validationError(
      value < 0 ? 'Ensure this value is greater than or equal to 0.' : 'Ensure this value is less than or equal to 30000.',
      name,
      value < 0 ? 'min_value' : 'max_value',
    );
  }
  if (name === 'slack_incoming_webhook' && typeof value === 'string' && value !== '' && !/^https?:\/\/\S+$/i.test(value)) {
    throw validationError('Enter a valid URL.', name);
  }
}

export interface TeamWrite {
  name?: string;
  settings: Record<string, unknown>;
}

/**
 * Reads an environment create or update body: every known field typed as the contract says,
 * errors as DRF words them (first one wins), read-only and unknown fields ignored.
 */
export function readTeamWrite(body: unknown): TeamWrite {
  const input = serializerData(body);
  const write: TeamWrite = { settings: {} };
  if ('name' in input) {
    const name = input.name === null ? null : readString(input.name, 'name');
    if (name === null) throw validationError('This field may not be null.', 'name', 'null');
    if (name.trim() === '') throw validationError('This field may not be blank.', 'name', 'blank');
    if (name.length > 200) throw validationError('Ensure this field has no more than 200 characters.', 'name', 'max_length');
    write.name = name;
  }
  for (const field of TEAM_CONFIG_FIELDS) {
    if (!(field.name in input) || READ_ONLY_TEAM_FIELDS.has(field.name)) continue;
    const value = readField(field, input[field.name]);
    checkFieldRules(field.name, value);
    JSON_SETTING_CHECKS[field.name]?.(value);
    write.settings[field.name] = value;
  }
  return write;
}
