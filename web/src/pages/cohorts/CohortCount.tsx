import { Group, Text, Tooltip } from '@mantine/core';
import { useEffect } from 'react';
import type { Cohort } from '../../api/cohorts';

/** How often a page looks again while a cohort is being calculated. */
const POLL_MS = 2000;

/** A cohort's count and the state of its calculation. */
export type CalculatedCohort = Pick<Cohort, 'count' | 'is_calculating' | 'errors_calculating'>;

/**
 * A cohort's person count: "Calculating…" while a dynamic cohort is calculated in the background,
 * and a warning when its last calculation failed (the count then is the one before, if any).
 */
export function CohortCount({ cohort }: { cohort: CalculatedCohort }) {
  if (cohort.is_calculating) {
    return (
      <Text span size="sm" c="dimmed" data-testid="cohort-calculating">
        Calculating…
      </Text>
    );
  }
  const count = <span data-testid="cohort-count">{cohort.count ?? '—'}</span>;
  if (!cohort.errors_calculating) return count;
  return (
    <Group gap={6} wrap="nowrap">
      {count}
      <Tooltip label="The last calculation failed; it is tried again later">
        <Text span size="xs" c="red" data-testid="cohort-calculation-failed">
          failed
        </Text>
      </Tooltip>
    </Group>
  );
}

/** Calls `refetch` every POLL_MS while `calculating` holds (the list's cohorts being calculated). */
export function useRefetchWhileCalculating(calculating: boolean, refetch: () => unknown, updatedAt: number) {
  useEffect(() => {
    if (!calculating) return;
    const timer = setTimeout(() => void refetch(), POLL_MS);
    return () => clearTimeout(timer);
  }, [calculating, refetch, updatedAt]);
}
