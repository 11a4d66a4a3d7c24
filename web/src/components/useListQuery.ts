import { useDebouncedCallback } from '@mantine/hooks';
import { useState, type ChangeEvent } from 'react';
import { useSearchParams } from 'react-router';

/** A non-negative integer from the address (`?offset=`), 0 when absent or odd. */
export function offsetParam(params: URLSearchParams): number {
  const value = Number(params.get('offset') ?? '0');
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/**
 * A searched, paged list's place in the address (`?search=`, `?offset=`): the search is applied as
 * the user types, once they pause, and starts again from the first page.
 */
export function useListQuery() {
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const offset = offsetParam(params);
  const [typed, setTyped] = useState(search);

  const setQuery = (next: { search?: string; offset?: number }) =>
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        if (next.search !== undefined) {
          if (next.search) updated.set('search', next.search);
          else updated.delete('search');
          updated.delete('offset');
        }
        if (next.offset !== undefined) {
          if (next.offset > 0) updated.set('offset', String(next.offset));
          else updated.delete('offset');
        }
        return updated;
      },
      { replace: next.search !== undefined },
    );
  const searchLater = useDebouncedCallback((value: string) => setQuery({ search: value.trim() }), 300);

  return {
    search,
    offset,
    setOffset: (value: number) => setQuery({ offset: value }),
    /** For the search box: what the user typed, and what typing does. */
    searchInput: {
      value: typed,
      onChange: (e: ChangeEvent<HTMLInputElement>) => {
        setTyped(e.currentTarget.value);
        searchLater(e.currentTarget.value);
      },
    },
  };
}
