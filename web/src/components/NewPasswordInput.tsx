import { PasswordInput } from '@mantine/core';
import type { UseFormRegisterReturn } from 'react-hook-form';

/** The shortest password the server takes. */
const MIN_PASSWORD_LENGTH = 8;

/** react-hook-form's rules for a new password: present, and as long as the server asks. */
export function newPasswordRules(required: string) {
  return { required, minLength: { value: MIN_PASSWORD_LENGTH, message: `At least ${MIN_PASSWORD_LENGTH} characters.` } };
}

/** A field for choosing a password (the browser may offer to generate and keep one). */
export function NewPasswordInput({ label, error, field }: { label: string; error: string | undefined; field: UseFormRegisterReturn }) {
  return <PasswordInput label={label} autoComplete="new-password" error={error} {...field} />;
}
