import { describe, expect, it } from 'vitest';
import { schemaErrorToApiError } from '../../src/http/error-handler.js';

/** The ApiError a route's schema violation becomes, as the client sees it. */
const answer = (error: { keyword: string; instancePath: string; params: Record<string, unknown> }, data: unknown) => {
  const { statusCode, type, code, detail, attr } = schemaErrorToApiError(error, data);
  return { statusCode, type, code, detail, attr };
};

describe('schema violations in DRF wording', () => {
  it('answers a value that should be a list with DRF ListField not_a_list, naming the Python type', () => {
    expect(answer({ keyword: 'type', instancePath: '/filters/tags', params: { type: 'array' } }, { filters: { tags: 'a' } })).toEqual({
      statusCode: 400,
      type: 'validation_error',
      code: 'not_a_list',
      detail: 'Expected a list of items but got type "str".',
      attr: 'filters__tags',
    });
    expect(answer({ keyword: 'type', instancePath: '/ids', params: { type: 'array' } }, { ids: { a: 1 } }).detail).toBe(
      'Expected a list of items but got type "dict".',
    );
  });

  it('answers null with DRF null, whatever the type', () => {
    expect(answer({ keyword: 'type', instancePath: '/ids', params: { type: 'array' } }, { ids: null })).toMatchObject({
      code: 'null',
      detail: 'This field may not be null.',
      attr: 'ids',
    });
  });
});
