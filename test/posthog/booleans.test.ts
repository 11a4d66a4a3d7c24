import { describe, expect, it } from 'vitest';
import { drfBoolean, FieldError, parseBoolean } from '../../src/posthog/drf-fields.js';
import { readBoolean } from '../../src/posthog/fields.js';
import { ApiError } from '../../src/posthog/errors.js';
import { strToBool } from '../../src/posthog/python-values.js';

// DRF BooleanField.TRUE_VALUES / FALSE_VALUES, copied from rest_framework/fields.py.
const DRF_TRUE = ['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true];
const DRF_FALSE = ['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false];
const NEITHER = ['tRuE', 'yEs', ' true', 'true ', '', 'x', 2, -1, 0.5, '1.0', 'None', [], {}, [true], undefined];

describe('DRF BooleanField (drfBoolean, parseBoolean, readBoolean)', () => {
  it('takes exactly DRF’s true and false spellings', () => {
    for (const value of DRF_TRUE) expect(drfBoolean(value), String(value)).toBe(true);
    for (const value of DRF_FALSE) expect(drfBoolean(value), String(value)).toBe(false);
    for (const value of NEITHER) expect(drfBoolean(value), JSON.stringify(value)).toBeUndefined();
  });

  it('refuses anything else with DRF’s message', () => {
    for (const value of NEITHER) {
      expect(() => parseBoolean(value)).toThrow(FieldError);
      expect(() => readBoolean(value, 'enabled')).toThrow(ApiError);
    }
    try {
      readBoolean('tRuE', 'enabled');
    } catch (e) {
      expect((e as ApiError).toEnvelope()).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'Must be a valid boolean.',
        attr: 'enabled',
      });
    }
  });

  it('answers null by the field: refused unless nullable', () => {
    expect(readBoolean(null, 'active', true)).toBeNull();
    try {
      readBoolean(null, 'active');
      expect.unreachable();
    } catch (e) {
      expect((e as ApiError).toEnvelope()).toEqual({
        type: 'validation_error',
        code: 'null',
        detail: 'This field may not be null.',
        attr: 'active',
      });
    }
  });
});

describe('str_to_bool (strToBool)', () => {
  it('is true for its six spellings in any case, false for everything else', () => {
    for (const value of ['y', 'yes', 't', 'true', 'on', '1', 'Y', 'YES', 'True', 'tRuE', 'On', 1, true]) {
      expect(strToBool(value), String(value)).toBe(true);
    }
    for (const value of ['n', 'no', 'false', 'off', '0', '', ' true', '2', 'x', 0, 2, false, null, undefined, [], {}, ['1']]) {
      expect(strToBool(value), JSON.stringify(value)).toBe(false);
    }
  });
});
