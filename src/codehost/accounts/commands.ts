import { type Command, type CommandContext, UsageError } from '../../platform/cli/command.js';
import { withCodehostDatabase } from '../db/command-database.js';
import { generatedPassword } from './initial-admin.js';
import { PasswordHasher } from './passwords.js';
import { AccountError, type UserRow, UserStore } from './users.js';

/** Runs an admin action with the user store; account rule violations are one line. */
function withUsers(
  context: CommandContext,
  action: (users: UserStore) => Promise<number>,
): Promise<number> {
  return withCodehostDatabase(
    context,
    (error) => (error instanceof AccountError ? error.message : undefined),
    (db) => action(new UserStore(db, new PasswordHasher(context.config().security.passwordHash))),
  );
}

async function existingUser(users: UserStore, username: string, context: CommandContext) {
  const user = await users.findByUsername(username);
  if (!user) context.stderr.write(`No user "${username}".\n`);
  return user;
}

export function positional(args: string[], count: number): string[] {
  const values = args.filter((arg) => !arg.startsWith('--'));
  if (values.length !== count) throw new UsageError('Wrong number of arguments.');
  return values;
}

function stateCommand(name: string, state: UserRow['state'], summary: string): Command {
  return {
    name,
    usage: `${name} <username>`,
    summary,
    example: 'alice',
    run: (args, context) => {
      const [username] = positional(args, 1) as [string];
      return withUsers(context, async (users) => {
        const user = await existingUser(users, username, context);
        if (!user) return 1;
        await users.setState(user.id, state);
        context.stdout.write(`${user.username} is now ${state}.\n`);
        return 0;
      });
    },
  };
}

/** codehost's admin verbs: manage accounts without the web interface. */
export const accountCommands: readonly Command[] = [
  {
    name: 'codehost-user-create',
    usage: 'codehost-user-create <username> <email> [--name=<name>] [--admin]',
    summary: 'Create a codehost user; prints a generated password once.',
    details:
      'The name defaults to the username. The password is printed once and must be changed at the first sign-in. --admin makes the user an administrator.',
    example: 'alice alice@example.org --admin',
    run: (args, context) => {
      const [username, email] = positional(args, 2) as [string, string];
      const unknown = args.filter(
        (arg) => arg.startsWith('--') && arg !== '--admin' && !arg.startsWith('--name='),
      );
      if (unknown.length > 0) throw new UsageError(`Unknown option ${unknown[0]}.`);
      const name = args.find((arg) => arg.startsWith('--name='))?.slice(7) ?? username;
      return withUsers(context, async (users) => {
        const password = generatedPassword();
        const user = await users.create({
          username,
          email,
          name,
          password,
          isAdmin: args.includes('--admin'),
          // Printed on a console: the owner replaces it at the first sign-in.
          mustChangePassword: true,
        });
        context.stdout.write(
          `Created ${user.is_admin ? 'administrator' : 'user'} ${user.username} (id ${user.id}).\nPassword: ${password}\n`,
        );
        return 0;
      });
    },
  },
  {
    name: 'codehost-user-add-email',
    usage: 'codehost-user-add-email <username> <email>',
    summary: 'Add a further e-mail address to a codehost user.',
    example: 'alice alice@work.example.org',
    run: (args, context) => {
      const [username, email] = positional(args, 2) as [string, string];
      return withUsers(context, async (users) => {
        const user = await existingUser(users, username, context);
        if (!user) return 1;
        await users.addEmail(user.id, email);
        context.stdout.write(`Added ${email} to ${user.username}.\n`);
        return 0;
      });
    },
  },
  stateCommand(
    'codehost-user-block',
    'blocked',
    'Block a codehost user (signs them out everywhere).',
  ),
  stateCommand('codehost-user-unblock', 'active', 'Unblock a codehost user.'),
  {
    name: 'codehost-user-reset-password',
    usage: 'codehost-user-reset-password <username>',
    summary: 'Give a codehost user a new generated password (printed once).',
    details: 'The user is asked to choose their own password at the next sign-in.',
    example: 'alice',
    run: (args, context) => {
      const [username] = positional(args, 1) as [string];
      return withUsers(context, async (users) => {
        const user = await existingUser(users, username, context);
        if (!user) return 1;
        const password = generatedPassword();
        await users.setPassword(user.id, password, { mustChange: true });
        context.stdout.write(
          `New password for ${user.username}: ${password} (they will be asked to choose their own at sign-in)\n`,
        );
        return 0;
      });
    },
  },
];
