/**
 * Numbers in person property filters read as the JSON text they were stored with, on both
 * backends: SQLite's cast of a real printed 17 significant digits and its own exponents, so
 * `exact` 0.00001 or 3.141592653589793 found no one there.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { seedPerson, selected } from './person-fixtures.js';

const server = useTestServer();
const person = (key: string, operator: string, value: unknown) => ({ type: 'person', key, operator, value });

describe('persons list: numbers as text', () => {
  it('reads a number as its stored JSON text, on SQLite too (no 17-digit cast, no 1.0e-05)', async () => {
    await seedPerson(server, { distinctIds: ['num-pi'], properties: { ratio: 3.141592653589793 } });
    await seedPerson(server, { distinctIds: ['num-small'], properties: { ratio: 0.00001 } });
    expect(await selected(server, [person('ratio', 'exact', '3.141592653589793')])).toEqual(['num-pi']);
    expect(await selected(server, [person('ratio', 'exact', 0.00001)])).toEqual(['num-small']);
    expect(await selected(server, [person('ratio', 'icontains', '00001')])).toEqual(['num-small']);
    expect(await selected(server, [person('ratio', 'regex', '^3\\.1415926535897930?$')])).toEqual(['num-pi']);
  });
});
