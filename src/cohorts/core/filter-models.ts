/**
 * PostHog's cohort `filters` models (CohortFilters and the members of its AND/OR groups: pydantic
 * models with extra="forbid", in posthog/api/cohort.py) as a table, and the errors pydantic finds
 * in a value, in its order: per model its fields' errors (a missing required field, a literal
 * that does not match, a nested member's errors), then its extra keys; a model whose fields all
 * validated runs its after-validators, the first failing one reported. CohortSerializer words
 * the list with `_cohort_error_message` (cohortErrorMessage below).
 *
 * Field type errors (a `key` that is no string, a `negation` that is no bool) are not mirrored:
 * such a member passes here, its after-validators included.
 */
import { parseDateInTimezone } from '../../flags/engine/dates.js';
import { isJsonObject } from '../../lib/json-object.js';
import { pythonRepr, pythonStr } from '../../posthog/python-text.js';

type Json = Record<string, unknown>;
export type Loc = ReadonlyArray<string | number>;

/** One entry of pydantic's `exc.errors()`; `ctx` is Python text already (a ValueError is no JSON). */
export interface PydanticError {
  type: string;
  loc: Loc;
  msg: string;
  input: unknown;
  ctx?: string;
}

interface Field {
  name: string;
  required?: boolean;
  literal?: readonly string[];
  /** A list of members of the filter union (a group's `values`) or of a plain union of models. */
  items?: 'members' | readonly Model[];
  /** A nested model (CohortFilters.properties), its location untagged. */
  model?: Model;
}

interface Model {
  /** The class name, which a plain union's errors carry in their location. */
  name: string;
  /** In pydantic's order: a mixin's fields before the class's own. */
  fields: readonly Field[];
  /** After-validators in the order pydantic runs them: each answers a message when it fails. */
  checks?: ReadonlyArray<(node: Json) => string | undefined>;
}

/** `posthog.hogql.property.PERSON_METADATA_FIELDS`: the persons-table columns a filter may name. */
export const PERSON_METADATA_FIELDS: readonly string[] = ['created_at'];

/** PostHog pins pydantic 2.10; its error links name that minor version. */
const PYDANTIC_ERRORS = 'https://errors.pydantic.dev/2.10/v/';

const field = (name: string, extra: Omit<Field, 'name'> = {}): Field => ({ name, ...extra });
const fields = (...names: string[]) => names.map((name) => field(name));

/** FilterBytecodeMixin's: PostHog writes them back into the filters it stores. */
const BYTECODE = fields('bytecode', 'bytecode_error', 'conditionHash');

/**
 * PersonValueValidationMixin's first check: a value unless the operator is is_set / is_not_set
 * (JSON null counts as none), and an operator always.
 */
const missingKeys =
  (noun: string) =>
  (node: Json): string | undefined => {
    const missing: string[] = [];
    const operator = node.operator ?? null;
    if ((node.value ?? null) === null && operator !== 'is_set' && operator !== 'is_not_set') missing.push('value');
    if (operator === null) missing.push('operator');
    return missing.length > 0 ? `Missing required keys for ${noun} filter: ${missing.join(', ')}` : undefined;
  };

const DATE_OPERATORS: readonly unknown[] = ['is_date_after', 'is_date_before'];
/** Any instant: in UTC a date text parses or not whatever the clock says. */
const ANY_NOW = new Date(0);

/**
 * Whether a filter date is one Hoglet's flag and cohort evaluation can read (the engine's
 * parseDateInTimezone, a string only), which is what a date filter is judged by here.
 */
export function isFilterDate(value: unknown): boolean {
  return typeof value === 'string' && parseDateInTimezone(value, 'UTC', ANY_NOW) !== null;
}

/** The mixin's second check (PostHog's `determine_parsed_date_for_property_matching`; see isFilterDate). */
function dateValue(node: Json): string | undefined {
  const value = node.value ?? null;
  if (!DATE_OPERATORS.includes(node.operator) || value === null || isFilterDate(value)) return undefined;
  return (
    `Invalid date value '${pythonStr(value)}' for operator '${pythonStr(node.operator)}'. ` +
    "Expected a relative date (e.g., '-7d', '30d') or an ISO 8601 date (e.g., '2024-01-15')."
  );
}

function metadataKey(node: Json): string | undefined {
  if (PERSON_METADATA_FIELDS.includes(node.key as string)) return undefined;
  return `Unsupported person_metadata key '${pythonStr(node.key)}'. Allowed keys: ${[...PERSON_METADATA_FIELDS].sort().join(', ')}.`;
}

const EVENT_PROP: Model = {
  name: 'EventPropFilter',
  fields: [
    field('type', { required: true, literal: ['event', 'element'] }),
    field('key', { required: true }),
    field('value', { required: true }),
    field('operator'),
  ],
};
const HOGQL: Model = {
  name: 'HogQLFilter',
  fields: [field('type', { required: true, literal: ['hogql'] }), field('key', { required: true }), field('value')],
};

const personModel = (name: string, noun: string, checks: Model['checks'] = []): Model => ({
  name,
  fields: [
    ...fields('operator', 'value'),
    ...BYTECODE,
    field('type', { required: true }),
    field('key', { required: true }),
    field('negation'),
  ],
  checks: [missingKeys(noun), dateValue, ...checks],
});

const GROUP: Model = {
  name: 'CohortFilterGroup',
  fields: [field('type', { required: true, literal: ['AND', 'OR'] }), field('values', { required: true, items: 'members' })],
};

/** The members of the `FilterOrGroup` union by their `type` tag. */
const MEMBERS = new Map<unknown, Model>([
  [
    'behavioral',
    {
      name: 'BehavioralFilter',
      fields: [
        ...BYTECODE,
        field('type', { required: true }),
        field('key', { required: true }),
        field('value', { required: true }),
        field('event_type', { required: true }),
        ...fields('time_value', 'time_interval', 'negation', 'operator', 'operator_value', 'seq_time_interval', 'seq_time_value'),
        ...fields('seq_event', 'seq_event_type', 'total_periods', 'min_periods'),
        field('event_filters', { items: [EVENT_PROP, HOGQL] }),
        ...fields('explicit_datetime', 'explicit_datetime_to'),
      ],
    },
  ],
  [
    'cohort',
    {
      name: 'CohortFilter',
      fields: [
        ...BYTECODE,
        field('type', { required: true }),
        field('key', { required: true, literal: ['id'] }),
        field('value', { required: true }),
        field('negation'),
      ],
    },
  ],
  ['person', personModel('PersonFilter', 'person')],
  ['person_metadata', personModel('PersonMetadataFilter', 'person_metadata', [metadataKey])],
  ['AND', GROUP],
  ['OR', GROUP],
]);

/** The union's tags as pydantic lists them in its errors. */
export const MEMBER_TAGS: readonly string[] = [...MEMBERS.keys()] as string[];
const EXPECTED_TAGS = MEMBER_TAGS.map((tag) => `'${tag}'`).join(', ');

const FILTERS: Model = { name: 'CohortFilters', fields: [field('properties', { required: true, model: GROUP })] };

/** pydantic's "'a', 'b' or 'c'". */
function expected(values: readonly string[]): string {
  const reprs = values.map(pythonRepr);
  return reprs.length === 1 ? reprs[0]! : `${reprs.slice(0, -1).join(', ')} or ${reprs.at(-1)!}`;
}

function modelErrors(node: Json, model: Model, loc: Loc, errors: PydanticError[]): void {
  const before = errors.length;
  for (const { name, required, literal, items, model: nested } of model.fields) {
    const at = [...loc, name];
    if (!Object.hasOwn(node, name)) {
      if (required) errors.push({ type: 'missing', loc: at, msg: 'Field required', input: node });
      continue;
    }
    const value = node[name];
    if (literal && !literal.includes(value as string)) {
      const text = expected(literal);
      errors.push({ type: 'literal_error', loc: at, msg: `Input should be ${text}`, input: value, ctx: pythonRepr({ expected: text }) });
    }
    if (nested && isJsonObject(value)) modelErrors(value, nested, at, errors);
    if (!items || !Array.isArray(value)) continue;
    value.forEach((item: unknown, index) => {
      if (items === 'members') memberErrors(item, [...at, index], errors);
      else unionErrors(item, items, [...at, index], errors);
    });
  }
  const known = new Set(model.fields.map((f) => f.name));
  for (const key of Object.keys(node)) {
    if (!known.has(key))
      errors.push({ type: 'extra_forbidden', loc: [...loc, key], msg: 'Extra inputs are not permitted', input: node[key] });
  }
  if (errors.length > before) return;
  for (const check of model.checks ?? []) {
    const text = check(node);
    if (text === undefined) continue;
    errors.push({ type: 'value_error', loc, msg: `Value error, ${text}`, input: node, ctx: `{'error': ValueError(${pythonRepr(text)})}` });
    return;
  }
}

/** A member of the discriminated union; one that is no object is left to the caller's shape check. */
function memberErrors(node: unknown, loc: Loc, errors: PydanticError[]): void {
  if (!isJsonObject(node)) return;
  if (!Object.hasOwn(node, 'type')) {
    const msg = "Unable to extract tag using discriminator 'type'";
    errors.push({ type: 'union_tag_not_found', loc, msg, input: node, ctx: pythonRepr({ discriminator: "'type'" }) });
    return;
  }
  const model = MEMBERS.get(node.type);
  if (model) return modelErrors(node, model, [...loc, node.type as string], errors);
  const tag = pythonStr(node.type);
  const msg = `Input tag '${tag}' found using 'type' does not match any of the expected tags: ${EXPECTED_TAGS}`;
  errors.push({
    type: 'union_tag_invalid',
    loc,
    msg,
    input: node,
    ctx: pythonRepr({ discriminator: "'type'", tag, expected_tags: EXPECTED_TAGS }),
  });
}

/** A plain (smart) union: valid when one choice is; else every choice's errors, under its class name. */
function unionErrors(node: unknown, choices: readonly Model[], loc: Loc, errors: PydanticError[]): void {
  if (!isJsonObject(node)) return;
  const tries = choices.map((model) => {
    const found: PydanticError[] = [];
    modelErrors(node, model, [...loc, model.name], found);
    return found;
  });
  if (tries.every((found) => found.length > 0)) errors.push(...tries.flat());
}

/** pydantic's errors for `CohortFilters.model_validate(filters)`, as far as modelled (see above). */
export function cohortFilterErrors(filters: Json): PydanticError[] {
  const errors: PydanticError[] = [];
  modelErrors(filters, FILTERS, [], errors);
  return errors;
}

/** A location as Python prints a tuple (one item keeps its comma). */
function tuple(loc: Loc): string {
  const items = loc.map(pythonRepr);
  return items.length === 1 ? `(${items[0]!},)` : `(${items.join(', ')})`;
}

/** `str(exc.errors())`: the list as Python prints it. */
export function pythonErrorList(errors: readonly PydanticError[]): string {
  const dicts = errors.map(({ type, loc, msg, input, ctx }) => {
    const context = ctx === undefined ? '' : `, 'ctx': ${ctx}`;
    return `{'type': ${pythonRepr(type)}, 'loc': ${tuple(loc)}, 'msg': ${pythonRepr(msg)}, 'input': ${pythonRepr(input)}${context}, 'url': '${PYDANTIC_ERRORS}${type}'}`;
  });
  return `[${dicts.join(', ')}]`;
}

/**
 * CohortSerializer._cohort_error_message: the first "Missing required keys" message, or the first
 * missing field of a behavioral, cohort or person filter in those words; else the whole list.
 */
export function cohortErrorMessage(errors: readonly PydanticError[]): string | undefined {
  if (errors.length === 0) return undefined;
  for (const { type, loc, msg } of errors) {
    const at = msg.indexOf('Missing required keys');
    if (type === 'value_error' && at !== -1) return msg.slice(at);
    if (type !== 'missing') continue;
    const parts = loc.map(String);
    const kind = ['behavioral', 'cohort', 'person'].find((k) => parts.includes(k));
    if (kind) return `Missing required keys for ${kind} filter: ${parts.at(-1)!}`;
  }
  return pythonErrorList(errors);
}
