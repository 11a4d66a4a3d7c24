import { Alert } from '@mantine/core';

/** An error, said plainly (its text comes from the API's `detail`, rendered as text). */
export function ErrorNotice({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <Alert color="red" title={title} m="md" role="alert">
      {message}
    </Alert>
  );
}
