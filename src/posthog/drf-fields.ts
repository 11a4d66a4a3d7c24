/**
 * Django REST framework's field parsing: the value a DRF field would store, or a FieldError with
 * DRF's code and message (the caller puts the attr on it). PostHog's serializers run these
 * fields; subscriptions, personal API keys and the ApiError readers in fields.ts share them.
 */
import { pyInt } from './python-values.js';
import { parseDrfDateTime } from './drf-datetime.js';
import { pyTypeName, pythonStr } from './python-text.js';

export type ResourceStatus = 'ok' | 'other_team' | 'missing';

/** DRF's own messages. */
export const DRF_MESSAGES = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  noData: 'No data provided',
  notAString: 'Not a valid string.',
  notAnInteger: 'A valid integer is required.',
  stringTooLarge: 'String value too large.',
  notABoolean: 'Must be a valid boolean.',
  nullCharacters: 'Null characters are not allowed.',
  invalidEmail: 'Enter a valid email address.',
  invalidChoice: (input: unknown) => `"${pythonStr(input)}" is not a valid choice.`,
  maxValue: (n: number) => `Ensure this value is less than or equal to ${n}.`,
  minValue: (n: number) => `Ensure this value is greater than or equal to ${n}.`,
  maxLength: (n: number) => `Ensure this field has no more than ${n} characters.`,
  incorrectPkType: (data: unknown) => `Incorrect type. Expected pk value, received ${pyTypeName(data)}.`,
  doesNotExist: (data: unknown) => `Invalid pk "${pythonStr(data)}" - object does not exist.`,
  notAList: (data: unknown) => `Expected a list of items but got type "${pyTypeName(data)}".`,
  notADict: (data: unknown) => `Invalid data. Expected a dictionary, but got ${pyTypeName(data)}.`,
  notADictOfItems: (data: unknown) => `Expected a dictionary of items but got type "${pyTypeName(data)}".`,
  surrogate: (codePoint: number) => `Surrogate characters are not allowed: U+${codePoint.toString(16).toUpperCase()}.`,
} as const;

export class FieldError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly subKey: string | null = null,
  ) {
    super(detail);
  }
}

export function fail(code: string, detail: string): never {
  throw new FieldError(code, detail);
}

/** Python int(str) (used after DRF strips a trailing ".0*"). */
export { pyInt };

/** DRF IntegerField.to_internal_value + min/max validators. */
export function parseInteger(data: unknown, min: number, max: number): number {
  if (typeof data === 'string' && data.length > 1000) fail('max_string_length', DRF_MESSAGES.stringTooLarge);
  let n: number | null = null;
  if (typeof data === 'number') n = Number.isInteger(data) ? data : null;
  else if (typeof data === 'string') n = pyInt(data.replace(/\.0*\s*$/, ''));
  if (n === null) fail('invalid', DRF_MESSAGES.notAnInteger);
  if (n > max) fail('max_value', DRF_MESSAGES.maxValue(max));
  if (n < min) fail('min_value', DRF_MESSAGES.minValue(min));
  return n;
}

/** DRF CharField (trim_whitespace) with optional max_length. */
export function parseString(data: unknown, opts: { allowBlank: boolean; maxLength?: number }): string {
  // DRF checks blankness on str(data) first, but only a string can be blank; other types are invalid.
  if (typeof data === 'boolean' || !(typeof data === 'string' || typeof data === 'number')) {
    fail('invalid', DRF_MESSAGES.notAString);
  }
  const value = (typeof data === 'string' ? data : pythonStr(data)).trim();
  if (value === '') {
    if (!opts.allowBlank) fail('blank', DRF_MESSAGES.blank);
    return '';
  }
  if (opts.maxLength !== undefined && [...value].length > opts.maxLength) {
    fail('max_length', DRF_MESSAGES.maxLength(opts.maxLength));
  }
  if (value.includes('\u0000')) fail('null_characters_not_allowed', DRF_MESSAGES.nullCharacters);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++; // a valid pair: one astral code point
        continue;
      }
      fail('surrogate_characters_not_allowed', DRF_MESSAGES.surrogate(c));
    }
  }
  return value;
}

/** DRF ChoiceField: the choice is looked up by str(data). */
export function parseChoice<T extends string>(data: unknown, choices: readonly T[]): T {
  const key = pythonStr(data);
  if (typeof data === 'object' || !(choices as readonly string[]).includes(key)) {
    fail('invalid_choice', DRF_MESSAGES.invalidChoice(data));
  }
  return key as T;
}

/** DRF BooleanField's TRUE_VALUES and FALSE_VALUES, exactly: case matters, no surrounding spaces. */
const DRF_TRUE = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true]);
const DRF_FALSE = new Set<unknown>(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false]);

/** DRF BooleanField.to_internal_value: the boolean a spelling stands for, undefined for any other value. */
export function drfBoolean(data: unknown): boolean | undefined {
  if (DRF_TRUE.has(data)) return true;
  if (DRF_FALSE.has(data)) return false;
  return undefined;
}

/** DRF BooleanField (null is the caller's, as each field allows it or not). */
export function parseBoolean(data: unknown): boolean {
  return drfBoolean(data) ?? fail('invalid', DRF_MESSAGES.notABoolean);
}

/** DRF PrimaryKeyRelatedField over integer pks, existence via `lookup`. Returns the pk. */
export function parsePk(data: unknown, lookup: (id: number) => ResourceStatus): { id: number; status: ResourceStatus } {
  let id: number | null = null;
  if (typeof data === 'number')
    id = Math.trunc(data); // Django's int() on the lookup value
  else if (typeof data === 'string') id = pyInt(data);
  if (id === null) fail('incorrect_type', DRF_MESSAGES.incorrectPkType(data));
  const status = Number.isSafeInteger(id) ? lookup(id) : 'missing';
  if (status === 'missing') fail('does_not_exist', DRF_MESSAGES.doesNotExist(data));
  return { id, status };
}

/** DRF DateTimeField, as drf-datetime.ts reads it. */
export function parseDateTime(data: unknown): string {
  const parsed = parseDrfDateTime(data);
  if (!parsed.ok) fail(parsed.code, parsed.detail);
  return parsed.iso;
}
