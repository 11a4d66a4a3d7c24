import { describe, expect, it } from 'vitest';

import {
  isValidEmail,
  pyTypeName,
  referencedResourceIds,
  validateSubscriptionBody,
  validateSubscriptionBodyAsync,
  webhookUrlError,
  type ExistingSubscription,
  type ResourceStatus,
  type ValidationContext,
} from '../../src/subscriptions/core/validate.js';
import { pythonStr } from '../../src/posthog/python-text.js';

// Dashboards/insights of the fake store: 1..9 ours, 50 another team's, everything else missing.
const status = (id: number): ResourceStatus => (id >= 1 && id <= 9 ? 'ok' : id === 50 ? 'other_team' : 'missing');

const lookups: string[] = [];
const ctx = (over: Partial<ValidationContext> = {}): ValidationContext => ({
  lookupDashboard: (id) => {
    lookups.push(`dashboard:${id}`);
    return status(id);
  },
  lookupInsight: (id) => {
    lookups.push(`insight:${id}`);
    return status(id);
  },
  slackConfigured: true,
  ...over,
});

const VALID = {
  insight: 1,
  target_type: 'email',
  target_value: 'test@posthog.com',
  frequency: 'weekly',
  interval: 1,
  start_date: '2022-01-01T00:00:00',
  title: 'My Subscription',
  invite_message: 'hey there!',
};

const EXISTING: ExistingSubscription = {
  dashboard: null,
  insight: 1,
  target_type: 'email',
  target_value: 'a@example.com',
};

const create = (body: unknown, over: Partial<ValidationContext> = {}) => validateSubscriptionBody(body, ctx(over));
const patch = (body: unknown, existing: Partial<ExistingSubscription> = {}, over: Partial<ValidationContext> = {}) =>
  validateSubscriptionBody(body, ctx({ existing: { ...EXISTING, ...existing }, ...over }));

/** The error envelope expected for a failing body. */
const err = (code: string, detail: string, attr: string | null) => ({
  ok: false,
  error: { type: 'validation_error', code, detail, attr },
});

describe('body shape', () => {
  it('null body: "No data provided"', () => {
    expect(create(null)).toEqual(err('null', 'No data provided', null));
  });

  it.each([
    [[], 'list'],
    ['x', 'str'],
    [5, 'int'],
    [1.5, 'float'],
    [true, 'bool'],
  ])('non-object body %j', (body, type) => {
    expect(create(body)).toEqual(err('invalid_input', `Invalid data. Expected a dictionary, but got ${type}.`, null));
  });
});

describe('create: accepted bodies', () => {
  it('the PostHog API example, normalised', () => {
    expect(create(VALID)).toEqual({
      ok: true,
      data: {
        insight: 1,
        target_type: 'email',
        target_value: 'test@posthog.com',
        frequency: 'weekly',
        interval: 1,
        start_date: '2022-01-01T00:00:00Z',
        title: 'My Subscription',
        invite_message: 'hey there!',
      },
    });
  });

  it('every writable field, with DRF coercions', () => {
    const r = create({
      dashboard: '2',
      insight: null,
      target_type: 'webhook',
      target_value: '  https://hooks.example.com/x?y=1  ',
      frequency: 'monthly',
      interval: '3.0',
      byweekday: ['friday', 'monday'],
      bysetpos: '-1',
      count: 12,
      start_date: '2024-01-01T09:00:00+02:00',
      until_date: '2025-01-01',
      deleted: 'false',
      title: '  Monthly  ',
      invite_message: null,
      id: 99, // read-only / unknown fields are ignored
      summary: 'x',
      next_delivery_date: 'garbage',
      created_at: 'garbage',
      unknown: { a: 1 },
    });
    expect(r).toEqual({
      ok: true,
      data: {
        dashboard: 2,
        insight: null,
        target_type: 'webhook',
        target_value: 'https://hooks.example.com/x?y=1',
        frequency: 'monthly',
        interval: 3,
        byweekday: ['friday', 'monday'],
        bysetpos: -1,
        count: 12,
        start_date: '2024-01-01T07:00:00Z',
        until_date: '2025-01-01T00:00:00Z',
        deleted: false,
        title: 'Monthly',
        invite_message: null,
      },
    });
  });

  it('nullable fields accept null; blank title and invite message are kept blank', () => {
    const r = create({
      ...VALID,
      byweekday: null,
      bysetpos: null,
      count: null,
      until_date: null,
      title: '',
      invite_message: '',
    });
    expect(r.ok && r.data).toMatchObject({
      byweekday: null,
      bysetpos: null,
      count: null,
      until_date: null,
      title: '',
      invite_message: '',
    });
  });

  it('an empty byweekday list is accepted', () => {
    const r = create({ ...VALID, byweekday: [] });
    expect(r.ok && r.data.byweekday).toEqual([]);
  });

  it('slack target with Slack configured', () => {
    expect(create({ ...VALID, target_type: 'slack', target_value: 'C0123|#general' }).ok).toBe(true);
  });
});

describe('create: required fields, in DRF field order', () => {
  it('empty body: target_type first', () => {
    expect(create({})).toEqual(err('required', 'This field is required.', 'target_type'));
  });

  it.each(['target_type', 'target_value', 'frequency', 'start_date'])('%s is required', (field) => {
    const body: Record<string, unknown> = { ...VALID };
    delete body[field];
    expect(create(body)).toEqual(err('required', 'This field is required.', field));
  });

  it('an undefined value counts as missing', () => {
    expect(create({ ...VALID, frequency: undefined })).toEqual(err('required', 'This field is required.', 'frequency'));
  });

  it.each(['interval', 'byweekday', 'bysetpos', 'count', 'until_date', 'deleted', 'title', 'invite_message'])('%s is optional', (field) => {
    const body: Record<string, unknown> = { ...VALID };
    delete body[field];
    expect(create(body).ok).toBe(true);
  });

  it.each(['target_type', 'target_value', 'frequency', 'interval', 'start_date', 'deleted'])('%s may not be null', (field) => {
    expect(create({ ...VALID, [field]: null })).toEqual(err('null', 'This field may not be null.', field));
  });

  it('the first failing field in declaration order wins', () => {
    expect(create({ ...VALID, insight: 999, target_type: 'sms', frequency: 'x' })).toEqual(
      err('does_not_exist', 'Invalid pk "999" - object does not exist.', 'insight'),
    );
    expect(create({ ...VALID, target_type: 'sms', frequency: 'x' })).toEqual(
      err('invalid_choice', '"sms" is not a valid choice.', 'target_type'),
    );
    expect(create({ ...VALID, frequency: 'x', interval: 0, title: 'x'.repeat(101) })).toEqual(
      err('invalid_choice', '"x" is not a valid choice.', 'frequency'),
    );
    expect(create({ ...VALID, until_date: 'x', deleted: 'x' })).toEqual(
      err(
        'invalid_input',
        'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
        'until_date',
      ),
    );
  });
});

describe('dashboard / insight', () => {
  it.each(['dashboard', 'insight'])('%s: unknown id', (field) => {
    const base = field === 'dashboard' ? { ...VALID, insight: undefined } : VALID;
    expect(create({ ...base, [field]: 999 })).toEqual(err('does_not_exist', 'Invalid pk "999" - object does not exist.', field));
    expect(create({ ...base, [field]: '12345' })).toEqual(err('does_not_exist', 'Invalid pk "12345" - object does not exist.', field));
  });

  it.each([
    ['abc', 'str'],
    ['1.5', 'str'],
    [true, 'bool'],
    [[1], 'list'],
    [{ id: 1 }, 'dict'],
  ])('dashboard %j: incorrect type (%s)', (value, type) => {
    expect(create({ ...VALID, insight: undefined, dashboard: value })).toEqual(
      err('incorrect_type', `Incorrect type. Expected pk value, received ${type}.`, 'dashboard'),
    );
  });

  it('numeric strings and floats are looked up as integers (Django int())', () => {
    lookups.length = 0;
    const r = create({ ...VALID, insight: ' 3 ' });
    expect(r.ok && r.data.insight).toBe(3);
    expect(lookups).toEqual(['insight:3']);
    const f = create({ ...VALID, insight: 2.7 });
    expect(f.ok && f.data.insight).toBe(2);
    expect(create({ ...VALID, insight: 99.5 })).toEqual(err('does_not_exist', 'Invalid pk "99.5" - object does not exist.', 'insight'));
  });

  it('an empty string is read as null (relational fields)', () => {
    const r = create({ ...VALID, dashboard: '' });
    expect(r.ok && r.data.dashboard).toBeNull();
  });

  it('another team’s dashboard / insight', () => {
    expect(create({ ...VALID, insight: undefined, dashboard: 50 })).toEqual(
      err('invalid_input', 'This dashboard does not belong to your team.', 'dashboard'),
    );
    expect(create({ ...VALID, insight: 50 })).toEqual(err('invalid_input', 'This insight does not belong to your team.', 'insight'));
    // dashboard is checked before insight
    expect(create({ ...VALID, dashboard: 50, insight: 50 })).toEqual(
      err('invalid_input', 'This dashboard does not belong to your team.', 'dashboard'),
    );
  });

  it('team checks run only after every field passed', () => {
    expect(create({ ...VALID, insight: 50, interval: 0 })).toEqual(
      err('min_value', 'Ensure this value is greater than or equal to 1.', 'interval'),
    );
  });

  it('exactly one of dashboard or insight', () => {
    expect(create({ ...VALID, insight: undefined })).toEqual(
      err('invalid_input', 'Either dashboard or insight is required for an export.', null),
    );
    expect(create({ ...VALID, insight: null, dashboard: null })).toEqual(
      err('invalid_input', 'Either dashboard or insight is required for an export.', null),
    );
    expect(create({ ...VALID, dashboard: 2 })).toEqual(
      err('invalid_input', 'A subscription can have either a dashboard or an insight, not both.', null),
    );
    expect(create({ ...VALID, insight: undefined, dashboard: 2 }).ok).toBe(true);
  });
});

describe('choices', () => {
  it.each([
    ['sms', '"sms" is not a valid choice.'],
    ['EMAIL', '"EMAIL" is not a valid choice.'],
    ['', '"" is not a valid choice.'],
    [5, '"5" is not a valid choice.'],
    [true, '"True" is not a valid choice.'],
    [['email'], `"['email']" is not a valid choice.`],
    [{ a: 1 }, `"{'a': 1}" is not a valid choice.`],
  ])('target_type %j', (value, detail) => {
    expect(create({ ...VALID, target_type: value })).toEqual(err('invalid_choice', detail, 'target_type'));
  });

  it.each(['email', 'slack', 'webhook'])('target_type %s is a choice', (t) => {
    const value = t === 'webhook' ? 'https://example.com' : t === 'email' ? 'a@b.co' : 'C1|#x';
    expect(create({ ...VALID, target_type: t, target_value: value }).ok).toBe(true);
  });

  it('frequency', () => {
    expect(create({ ...VALID, frequency: 'fortnightly' })).toEqual(
      err('invalid_choice', '"fortnightly" is not a valid choice.', 'frequency'),
    );
    expect(create({ ...VALID, frequency: 'hourly' })).toEqual(err('invalid_choice', '"hourly" is not a valid choice.', 'frequency'));
    for (const f of ['daily', 'weekly', 'monthly', 'yearly']) expect(create({ ...VALID, frequency: f }).ok).toBe(true);
  });

  it('byweekday entries', () => {
    expect(create({ ...VALID, byweekday: ['monday', 'funday', 'x'] })).toEqual(
      err('invalid_choice', '"funday" is not a valid choice.', 'byweekday__1'),
    );
    expect(create({ ...VALID, byweekday: ['Monday'] })).toEqual(err('invalid_choice', '"Monday" is not a valid choice.', 'byweekday__0'));
    expect(create({ ...VALID, byweekday: ['monday', null] })).toEqual(err('null', 'This field may not be null.', 'byweekday__1'));
    const all = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    const r = create({ ...VALID, byweekday: all });
    expect(r.ok && r.data.byweekday).toEqual(all);
  });

  it.each([
    ['monday', 'str'],
    [{ monday: true }, 'dict'],
    [1, 'int'],
    [true, 'bool'],
  ])('byweekday %j is not a list', (value, type) => {
    expect(create({ ...VALID, byweekday: value })).toEqual(
      err('not_a_list', `Expected a list of items but got type "${type}".`, 'byweekday'),
    );
  });
});

describe('integers', () => {
  it.each(['interval', 'count'])('%s must be positive', (field) => {
    for (const v of [0, -1, -2147483648]) {
      expect(create({ ...VALID, [field]: v })).toEqual(err('min_value', 'Ensure this value is greater than or equal to 1.', field));
    }
    expect(create({ ...VALID, [field]: 1 }).ok).toBe(true);
  });

  it.each(['interval', 'count', 'bysetpos'])('%s is a 32-bit integer', (field) => {
    expect(create({ ...VALID, [field]: 2147483648 })).toEqual(
      err('max_value', 'Ensure this value is less than or equal to 2147483647.', field),
    );
    expect(create({ ...VALID, [field]: '99999999999999999999' })).toEqual(
      err('max_value', 'Ensure this value is less than or equal to 2147483647.', field),
    );
  });

  it('interval and count accept the 32-bit maximum', () => {
    const r = create({ ...VALID, interval: 2147483647, count: '2147483647' });
    expect(r.ok && [r.data.interval, r.data.count]).toEqual([2147483647, 2147483647]);
  });

  it('bysetpos below the 32-bit minimum', () => {
    expect(create({ ...VALID, bysetpos: -2147483649 })).toEqual(
      err('min_value', 'Ensure this value is greater than or equal to -2147483648.', 'bysetpos'),
    );
  });

  it.each([0, 367, -367, 1000, -2147483648])('bysetpos %i is outside what the rule accepts', (v) => {
    expect(create({ ...VALID, bysetpos: v })).toEqual(
      err('invalid_input', 'bysetpos must be between 1 and 366, or between -366 and -1.', 'bysetpos'),
    );
  });

  it.each([1, 4, -1, 366, -366])('bysetpos %i is accepted', (v) => {
    const r = create({ ...VALID, byweekday: ['monday'], bysetpos: v });
    expect(r.ok && r.data.bysetpos).toBe(v);
  });

  it.each([['abc'], [1.5], ['1.5'], [true], [false], [[1]], [{}], ['1e3'], ['']])('interval %j is not an integer', (v) => {
    expect(create({ ...VALID, interval: v })).toEqual(err('invalid_input', 'A valid integer is required.', 'interval'));
  });

  it.each([
    ['2', 2],
    [' 7 ', 7],
    ['3.000', 3],
    [4.0, 4],
    ['+5', 5],
    ['1_0', 10],
  ])('interval %j is read as %i (Python int())', (v, n) => {
    const r = create({ ...VALID, interval: v });
    expect(r.ok && r.data.interval).toBe(n);
  });

  it('a string longer than 1000 characters', () => {
    expect(create({ ...VALID, count: '1'.repeat(1001) })).toEqual(err('max_string_length', 'String value too large.', 'count'));
  });
});

describe('strings', () => {
  it.each(['', '   ', '\n\t'])('target_value %j is blank', (v) => {
    expect(create({ ...VALID, target_value: v })).toEqual(err('blank', 'This field may not be blank.', 'target_value'));
  });

  it.each([[{}], [[]], [true]])('target_value %j is not a string', (v) => {
    expect(create({ ...VALID, target_value: v })).toEqual(err('invalid_input', 'Not a valid string.', 'target_value'));
  });

  it('numbers are turned into strings (then checked as a target)', () => {
    expect(create({ ...VALID, target_value: 5 })).toEqual(err('invalid_input', 'Enter a valid email address.', 'target_value'));
    const r = create({ ...VALID, title: 12 });
    expect(r.ok && r.data.title).toBe('12');
  });

  it('title is at most 100 characters (code points)', () => {
    expect(create({ ...VALID, title: 'x'.repeat(101) })).toEqual(
      err('max_length', 'Ensure this field has no more than 100 characters.', 'title'),
    );
    expect(create({ ...VALID, title: 'x'.repeat(100) }).ok).toBe(true);
    expect(create({ ...VALID, title: '😀'.repeat(100) }).ok).toBe(true);
    expect(create({ ...VALID, title: ` ${'x'.repeat(100)} ` }).ok).toBe(true);
  });

  it('null characters and lone surrogates are refused', () => {
    expect(create({ ...VALID, title: 'a\u0000b' })).toEqual(
      err('null_characters_not_allowed', 'Null characters are not allowed.', 'title'),
    );
    expect(create({ ...VALID, invite_message: 'hi \ud800' })).toEqual(
      err('surrogate_characters_not_allowed', 'Surrogate characters are not allowed: U+D800.', 'invite_message'),
    );
    expect(create({ ...VALID, invite_message: { x: 1 } })).toEqual(err('invalid_input', 'Not a valid string.', 'invite_message'));
  });
});

describe('dates', () => {
  const WRONG = 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

  it.each(['start_date', 'until_date'])('%s must parse as ISO 8601', (field) => {
    for (const v of ['yesterday', '2022-13-01T00:00:00', '01/02/2022', '', 1640995200, true]) {
      expect(create({ ...VALID, [field]: v })).toEqual(err('invalid_input', WRONG, field));
    }
  });

  it('out-of-range after conversion to UTC', () => {
    expect(create({ ...VALID, start_date: '0001-01-01T00:00:00+01:00' })).toEqual(
      err('overflow', 'Datetime value out of range.', 'start_date'),
    );
  });

  it('dates are returned in DRF output form, UTC', () => {
    const r = create({ ...VALID, start_date: '2022-06-01 08:00:00.5-04:00', until_date: '2023-01-01T00:00:00Z' });
    expect(r.ok && [r.data.start_date, r.data.until_date]).toEqual(['2022-06-01T12:00:00.500000Z', '2023-01-01T00:00:00Z']);
  });
});

describe('deleted', () => {
  it.each([
    [true, true],
    ['true', true],
    ['True', true],
    ['yes', true],
    ['on', true],
    ['1', true],
    [1, true],
    [false, false],
    ['false', false],
    ['off', false],
    ['n', false],
    [0, false],
  ])('%j -> %s', (v, b) => {
    const r = create({ ...VALID, deleted: v });
    expect(r.ok && r.data.deleted).toBe(b);
  });

  it.each([['maybe'], [2], [''], [[]], [{}]])('%j is not a boolean', (v) => {
    expect(create({ ...VALID, deleted: v })).toEqual(err('invalid_input', 'Must be a valid boolean.', 'deleted'));
  });
});

describe('targets', () => {
  it.each([
    'a@b.co',
    'first.last+tag@example.com',
    'a@b.co,c@d.org',
    "o'hara@example.ie",
    'user@localhost',
    'user@[127.0.0.1]',
    'user@[::1]',
    'user@münchen.de',
    '"quoted@name"@example.com',
  ])('email %j is valid', (v) => {
    expect(create({ ...VALID, target_value: v }).ok).toBe(true);
  });

  it.each([
    'not-an-email',
    '@example.com',
    'a@',
    'a@b',
    'a@b.c',
    'a@-b.com',
    'a@b-.com',
    'a b@example.com',
    'a@b.co,',
    'a@b.co,,c@d.co',
    'a@b.co;c@d.co',
    'a..b@example.com',
    'a@[999.1.1.1]',
    '"quoted name"@example.com', // Django's quoted-string class excludes the space
    `${'x'.repeat(310)}@example.com`,
  ])('email %j is refused', (v) => {
    expect(create({ ...VALID, target_value: v })).toEqual(err('invalid_input', 'Enter a valid email address.', 'target_value'));
  });

  it('email lists are normalised: entries trimmed, joined by commas', () => {
    const r = create({ ...VALID, target_value: ' a@b.co , c@d.org' });
    expect(r.ok && r.data.target_value).toBe('a@b.co,c@d.org');
  });

  it.each([
    ['https://example.com/hook', null],
    ['http://10.0.0.5:8080/hook', 'Invalid webhook URL: Private IP address not allowed'],
    ['HTTPS://Example.com', null],
    ['ftp://example.com', 'Invalid webhook URL: URL must start with http:// or https://'],
    ['example.com/hook', 'Invalid webhook URL: URL must start with http:// or https://'],
    ['javascript:alert(1)', 'Invalid webhook URL: URL must start with http:// or https://'],
    ['https://', 'Invalid webhook URL: Missing host'],
    ['http:///path', 'Invalid webhook URL: Missing host'],
    ['https:example.com', 'Invalid webhook URL: Missing host'],
    ['https://exa mple.com/', 'Invalid webhook URL: Invalid URL'],
    ['https://good.example\\@evil.example/', 'Invalid webhook URL: Invalid URL'],
    ['https://a%5c@b.example/', 'Invalid webhook URL: Invalid URL'],
  ])('webhook %j', (v, message) => {
    expect(webhookUrlError(v)).toBe(message);
    const r = create({ ...VALID, target_type: 'webhook', target_value: v });
    expect(r).toEqual(message === null ? { ok: true, data: expect.anything() } : err('invalid_input', message, 'target_value'));
  });

  it('webhook URLs are kept as given (trimmed)', () => {
    const r = create({ ...VALID, target_type: 'webhook', target_value: 'https://Example.com/a b' });
    expect(r.ok && r.data.target_value).toBe('https://Example.com/a b');
  });

  it('slack needs Slack configured in the environment', () => {
    expect(create({ ...VALID, target_type: 'slack', target_value: 'C01|#general' }, { slackConfigured: false })).toEqual(
      err('invalid_input', 'A Slack integration is required for Slack subscriptions.', 'target_type'),
    );
  });

  it('the slack target value itself is free text (PostHog does not check it)', () => {
    expect(create({ ...VALID, target_type: 'slack', target_value: 'anything at all' }).ok).toBe(true);
  });

  it('resource invariant is checked before the target', () => {
    expect(create({ ...VALID, insight: undefined, target_value: 'bad' })).toEqual(
      err('invalid_input', 'Either dashboard or insight is required for an export.', null),
    );
  });
});

describe('PATCH (partial update)', () => {
  it('an empty body is valid and changes nothing', () => {
    expect(patch({})).toEqual({ ok: true, data: {} });
  });

  it('required fields are not required, but still may not be null', () => {
    expect(patch({ title: 'x' })).toEqual({ ok: true, data: { title: 'x' } });
    expect(patch({ target_type: null })).toEqual(err('null', 'This field may not be null.', 'target_type'));
    expect(patch({ start_date: null })).toEqual(err('null', 'This field may not be null.', 'start_date'));
  });

  it('given fields are validated with the same messages', () => {
    expect(patch({ frequency: 'fortnightly' })).toEqual(err('invalid_choice', '"fortnightly" is not a valid choice.', 'frequency'));
    expect(patch({ interval: 0 })).toEqual(err('min_value', 'Ensure this value is greater than or equal to 1.', 'interval'));
    expect(patch({ dashboard: 50, insight: null })).toEqual(
      err('invalid_input', 'This dashboard does not belong to your team.', 'dashboard'),
    );
  });

  it('soft delete and restore', () => {
    expect(patch({ deleted: true })).toEqual({ ok: true, data: { deleted: true } });
    expect(patch({ deleted: false })).toEqual({ ok: true, data: { deleted: false } });
  });

  it('an untouched invariant is not re-checked (soft delete of a Slack subscription without Slack)', () => {
    const slackSub = { target_type: 'slack', target_value: 'C1|#x' };
    expect(patch({ deleted: true }, slackSub, { slackConfigured: false }).ok).toBe(true);
    expect(patch({ deleted: true }, { target_value: 'legacy value, not an email' }).ok).toBe(true);
  });

  it('the merged record keeps exactly one of dashboard / insight', () => {
    expect(patch({ dashboard: 2 })).toEqual(
      err('invalid_input', 'A subscription can have either a dashboard or an insight, not both.', null),
    );
    expect(patch({ insight: null })).toEqual(err('invalid_input', 'Either dashboard or insight is required for an export.', null));
    expect(patch({ dashboard: 2, insight: null })).toEqual({ ok: true, data: { dashboard: 2, insight: null } });
    expect(patch({ insight: 3 })).toEqual({ ok: true, data: { insight: 3 } });
  });

  it('changing target_type checks the existing target_value', () => {
    expect(patch({ target_type: 'webhook' })).toEqual(
      err('invalid_input', 'Invalid webhook URL: URL must start with http:// or https://', 'target_value'),
    );
    expect(patch({ target_type: 'webhook', target_value: 'https://example.com' }).ok).toBe(true);
    expect(patch({ target_type: 'email' }, { target_type: 'webhook', target_value: 'https://x.example' })).toEqual(
      err('invalid_input', 'Enter a valid email address.', 'target_value'),
    );
  });

  it('changing target_value checks it against the existing target_type', () => {
    expect(patch({ target_value: 'bad' })).toEqual(err('invalid_input', 'Enter a valid email address.', 'target_value'));
    expect(patch({ target_value: 'x@y.io, z@y.io' })).toEqual({ ok: true, data: { target_value: 'x@y.io,z@y.io' } });
    expect(patch({ target_value: 'C9|#ops' }, { target_type: 'slack' }, { slackConfigured: false })).toEqual(
      err('invalid_input', 'A Slack integration is required for Slack subscriptions.', 'target_type'),
    );
    expect(patch({ target_value: 'C9|#ops' }, { target_type: 'slack' }).ok).toBe(true);
  });
});

describe('async variant and helpers', () => {
  it('referencedResourceIds picks the ids DRF would look up', () => {
    expect(referencedResourceIds({ dashboard: '7', insight: 2.9 })).toEqual({ dashboard: 7, insight: 2 });
    expect(referencedResourceIds({ dashboard: 'abc', insight: null })).toEqual({ dashboard: null, insight: null });
    expect(referencedResourceIds(null)).toEqual({ dashboard: null, insight: null });
  });

  it('resolves async lookups first and gives the same answers', async () => {
    const asyncCtx = {
      lookupDashboard: async (id: number) => status(id),
      lookupInsight: async (id: number) => status(id),
      slackConfigured: true,
    };
    expect(await validateSubscriptionBodyAsync(VALID, asyncCtx)).toEqual(create(VALID));
    expect(await validateSubscriptionBodyAsync({ ...VALID, insight: 50 }, asyncCtx)).toEqual(
      err('invalid_input', 'This insight does not belong to your team.', 'insight'),
    );
    expect(await validateSubscriptionBodyAsync({ ...VALID, insight: '404' }, asyncCtx)).toEqual(
      err('does_not_exist', 'Invalid pk "404" - object does not exist.', 'insight'),
    );
    expect(await validateSubscriptionBodyAsync({ dashboard: 2 }, { ...asyncCtx, existing: { ...EXISTING, insight: null } })).toEqual({
      ok: true,
      data: { dashboard: 2 },
    });
  });

  it('isValidEmail / pythonStr / pyTypeName', () => {
    expect(isValidEmail('a@b.co')).toBe(true);
    expect(isValidEmail('')).toBe(false);
    expect(pythonStr([1, 'a', null, true, { k: "it's" }])).toBe(`[1, 'a', None, True, {'k': "it's"}]`);
    expect(pythonStr(1e21)).toBe('1e+21');
    expect(pythonStr(1e-7)).toBe('1e-07');
    expect(pyTypeName(null)).toBe('NoneType');
  });
});
