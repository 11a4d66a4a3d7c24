import { Badge } from '@mantine/core';
import type { Stage } from '../../api/early-access';

const COLORS: Record<Stage, string> = {
  draft: 'gray',
  concept: 'grape',
  alpha: 'orange',
  beta: 'blue',
  'general-availability': 'green',
  archived: 'dark',
};

export const STAGE_LABELS: Record<Stage, string> = {
  draft: 'Draft',
  concept: 'Concept',
  alpha: 'Alpha',
  beta: 'Beta',
  'general-availability': 'General availability',
  archived: 'Archived',
};

export function StageBadge({ stage }: { stage: Stage }) {
  return (
    <Badge variant="light" color={COLORS[stage] ?? 'gray'} data-testid="stage">
      {STAGE_LABELS[stage] ?? stage}
    </Badge>
  );
}
