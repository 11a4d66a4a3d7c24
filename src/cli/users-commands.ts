import { createAccount, LEVEL_NAMES, resetPasswordOf, UserInputError } from '../auth/users-service.js';
import { withDatabase } from './admin-commands.js';
import { readPassword } from './read-secret.js';

const USAGE =
  'usage: hoglet users create --email E [--first-name N] [--last-name N] [--level member|admin|owner] [--organization ID] | ' +
  'hoglet users set-password --email E | hoglet users list (the password is read from standard input)';

/** `hoglet users create`, `set-password` and `list`. Passwords come from standard input, never argv. */
export async function runUsersCommand(
  sub: string | undefined,
  options: {
    email?: string | undefined;
    'first-name'?: string | undefined;
    'last-name'?: string | undefined;
    level?: string | undefined;
    organization?: string | undefined;
  },
): Promise<number> {
  try {
    if (sub === 'create' || sub === 'set-password') {
      const email = options.email?.trim();
      if (!email) throw new UserInputError(`users ${sub} needs --email`);
      const level = LEVEL_NAMES[(options.level ?? 'member') as keyof typeof LEVEL_NAMES];
      if (level === undefined) throw new UserInputError('--level must be member, admin or owner');
      const password = await readPassword();
      return await withDatabase(async (database) => {
        if (sub === 'create') {
          const user = await createAccount(database, {
            email,
            firstName: options['first-name'],
            lastName: options['last-name'],
            organizationId: options.organization,
            level,
            password,
          });
          process.stdout.write(
            `Created user ${user.email} (${user.uuid}), ${options.level ?? 'member'} of organization ${user.currentOrganizationId}.\n`,
          );
        } else {
          const { user, endedSessions } = await resetPasswordOf(database, email, password);
          process.stdout.write(`Set the password of ${user.email}; ${endedSessions} signed-in session(s) ended.\n`);
        }
        return 0;
      });
    }
    if (sub === 'list') {
      return await withDatabase(async (database) => {
        const rows = await database.db
          .selectFrom('users')
          .select(['uuid', 'email', 'first_name', 'password', 'last_login'])
          .orderBy('id')
          .execute();
        for (const r of rows) {
          process.stdout.write(
            `${r.uuid}  ${r.email}  ${r.first_name}  password=${r.password ? 'set' : 'unset'}  last_login=${r.last_login ?? '-'}\n`,
          );
        }
        return 0;
      });
    }
  } catch (error) {
    if (error instanceof UserInputError) {
      process.stderr.write(`hoglet: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  throw new Error(USAGE);
}
