import { Alert, Text, type AlertProps } from '@mantine/core';
import type { ReactNode } from 'react';

/** A red alert with the message (an API error's detail, say); nothing without one. */
export function ErrorAlert({ message, ...props }: { message: ReactNode } & Omit<AlertProps, 'color' | 'children'>) {
  if (message === undefined || message === null || message === false || message === '') return null;
  return (
    <Alert color="red" role="alert" {...props}>
      {message}
    </Alert>
  );
}

/** An error's text under a control, announced as an alert; nothing without one. */
export function ErrorText({ message, testId }: { message: ReactNode; testId?: string }) {
  if (message === undefined || message === null || message === false || message === '') return null;
  return (
    <Text c="red" size="sm" role="alert" data-testid={testId}>
      {message}
    </Text>
  );
}
