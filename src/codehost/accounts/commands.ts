import { type Command, type CommandContext, UsageError } from '../../platform/cli/command.js';
import { serviceSection, serviceSettings } from '../../platform/config.js';
import { MailTransport } from '../../platform/mail/mail-transport.js';
import type { CodehostSettings } from '../config.js';
import { withCodehostDatabase } from '../db/command-database.js';
import { generatedPassword } from './initial-admin.js';
import { PasswordHasher } from './passwords.js';
import { TwoFactorStore } from './two-factor.js';
import { AccountError, isTwoFactorEnabled, type UserRow, UserStore } from './users.js';

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

/** The mail that tells a user their second factors were turned off. */
function secondFactorsOffMail(
  user: UserRow,
  removed: { totp: boolean; passkeys: number },
  publicUrl: string,
) {
  const what = [
    ...(removed.totp ? ['your authenticator app'] : []),
    ...(removed.passkeys > 0
      ? [`${removed.passkeys === 1 ? 'your passkey' : `your ${removed.passkeys} passkeys`}`]
      : []),
    'your recovery codes',
  ].join(', ');
  return {
    id: `second-factors-off-${user.id}-${Date.now()}`,
    to: user.email,
    subject: 'Your two-factor authentication was turned off',
    text: `Hello ${user.name},

An administrator of codehost (${publicUrl}) turned off two-factor authentication for your account ${user.username} on ${new Date().toUTCString()}: ${what} were removed. Your password alone now signs you in.

If you did not ask for this, change your password now (${publicUrl}/profile/password/edit) and tell your administrator.

Set up two-factor authentication again: ${publicUrl}/profile/two_factor_auth
`,
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
    name: 'codehost-user-disable-two-factor',
    usage: 'codehost-user-disable-two-factor <username>',
    summary: "Turn off a codehost user's second factors: app, passkeys and recovery codes.",
    details:
      "For a user locked out (a lost phone or passkey, no recovery code left), as GitLab's administrators do. The user's pages say so until they set a second factor up again, and a mail tells them (through CODEHOST_SMTP_URL, or written to CODEHOST_MAIL_DIR). Their password is unchanged: codehost-user-reset-password gives a new one.",
    example: 'alice',
    run: (args, context) => {
      const [username] = positional(args, 1) as [string];
      return withCodehostDatabase(
        context,
        () => undefined,
        async (db) => {
          const users = new UserStore(
            db,
            new PasswordHasher(context.config().security.passwordHash),
          );
          const user = await existingUser(users, username, context);
          if (!user) return 1;
          if (!isTwoFactorEnabled(user)) {
            context.stdout.write(`${user.username} has no second factor; nothing was changed.\n`);
            return 0;
          }
          const removed = await new TwoFactorStore(db).removeAllSecondFactors(user.id);
          context.stdout.write(
            `Turned off two-factor authentication for ${user.username}: ${removed.totp ? 'the authenticator app, ' : ''}${removed.passkeys} passkey${removed.passkeys === 1 ? '' : 's'} and the recovery codes were removed. Their pages say so.\n`,
          );
          const config = context.config();
          const mail = new MailTransport(
            serviceSettings<CodehostSettings>(config, 'codehost').mail,
          );
          try {
            const where = await mail.send(
              secondFactorsOffMail(user, removed, serviceSection(config, 'codehost').publicUrl),
            );
            context.stdout.write(`A mail telling them went to ${where}.\n`);
          } catch (error) {
            context.stderr.write(
              `The mail telling them could not be sent (${error instanceof Error ? error.message : String(error)}); tell them yourself.\n`,
            );
          } finally {
            mail.close();
          }
          return 0;
        },
      );
    },
  },
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
