import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ConfirmAction } from './ConfirmAction';

/**
 * "Delete" on a resource's page: asked first, then `remove` (PostHog's soft delete, `deleted: true`)
 * and on to `to`, the list the resource has left.
 */
export function DeleteAndLeave({
  noun,
  remove,
  to,
  children,
}: {
  noun: string;
  remove: () => Promise<unknown>;
  to: string;
  children: ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <ConfirmAction
      label="Delete"
      variant="subtle"
      size="sm"
      title={`Delete this ${noun}?`}
      confirmLabel={`Delete ${noun}`}
      action={async () => {
        await remove();
        await navigate(to);
      }}
    >
      {children}
    </ConfirmAction>
  );
}
