import { Badge } from '@mantine/core';
import type { SurveyStatus } from '../../api/surveys';
import { SURVEY_TYPES } from './survey-form';

const STATUS = {
  draft: { label: 'Draft', color: 'gray' },
  running: { label: 'Running', color: 'green' },
  completed: { label: 'Completed', color: 'blue' },
} as const;

/** A survey's status as a badge: draft, running or completed. */
export function StatusBadge({ status }: { status: SurveyStatus }) {
  const { label, color } = STATUS[status];
  return (
    <Badge color={color} variant="light" data-testid="survey-status">
      {label}
    </Badge>
  );
}

export const surveyTypeLabel = (type: string) => SURVEY_TYPES.find((t) => t.value === type)?.label ?? type;
