import { describe, expect, it } from 'vitest';
import { readFlagsRequest } from '../../../src/sdk/flags/flag-request.js';

describe('readFlagsRequest', () => {
  it('keeps a group type named __proto__ as a group type, not as the map of group types prototype', () => {
    const body: unknown = JSON.parse('{"group_properties":{"__proto__":{"company":{"plan":"pro"}},"team":{"size":3}}}');
    const request = readFlagsRequest(body);
    const types = request!.groupProperties;
    expect(Object.getPrototypeOf(types)).toBe(Object.prototype);
    expect(Object.keys(types).sort()).toEqual(['__proto__', 'team']);
    const seen: string[] = [];
    for (const type in types) seen.push(type);
    expect(seen.sort()).toEqual(['__proto__', 'team']);
    expect(Object.getOwnPropertyDescriptor(types, '__proto__')?.value).toEqual({ company: { plan: 'pro' } });
  });

  it('drops group property maps that are not objects', () => {
    const request = readFlagsRequest({ group_properties: { company: 'x', team: [1], org: { a: 1 } } });
    expect(request!.groupProperties).toEqual({ org: { a: 1 } });
  });
});
