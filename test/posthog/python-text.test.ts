import { describe, expect, it } from 'vitest';
import { pythonRepr, pythonStr, pyTypeName } from '../../src/posthog/python-text.js';

describe("Python's str() and repr() of JSON values (texts of DRF and f-string messages)", () => {
  it('prints numbers as Python does: ints in full, floats by repr', () => {
    expect(pythonStr(5)).toBe('5');
    expect(pythonStr(-12)).toBe('-12');
    expect(pythonStr(2.5)).toBe('2.5');
    expect(pythonStr(-0.5)).toBe('-0.5');
    expect(pythonStr(0.0001)).toBe('0.0001');
    expect(pythonStr(0.00001)).toBe('1e-05');
    expect(pythonStr(3e-5)).toBe('3e-05');
    expect(pythonStr(1e-7)).toBe('1e-07');
    expect(pythonStr(123456789.125)).toBe('123456789.125');
    expect(pythonStr(1e16)).toBe('10000000000000000');
    expect(pythonStr(1e21)).toBe('1e+21');
    expect(pythonStr(1.5e300)).toBe('1.5e+300');
  });

  it('quotes strings inside containers the way repr does', () => {
    expect(pythonStr('plain')).toBe('plain');
    expect(pythonRepr('plain')).toBe("'plain'");
    expect(pythonRepr("it's")).toBe(`"it's"`);
    expect(pythonRepr(`both ' and "`)).toBe(`'both \\' and "'`);
    expect(pythonRepr('tab\there\nnew')).toBe("'tab\\there\\nnew'");
    expect(pythonStr([1, 'a', null, true, { k: "it's", n: 0.1 }])).toBe(`[1, 'a', None, True, {'k': "it's", 'n': 0.1}]`);
  });

  it('names JSON types as Python does', () => {
    expect([null, 'x', true, 1, 1.5, [], {}].map(pyTypeName)).toEqual(['NoneType', 'str', 'bool', 'int', 'float', 'list', 'dict']);
  });
});
