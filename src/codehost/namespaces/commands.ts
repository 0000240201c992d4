import type { Kysely } from 'kysely';
import { type Command, type CommandContext, UsageError } from '../../platform/cli/command.js';
import { positional } from '../accounts/commands.js';
import { PasswordHasher } from '../accounts/passwords.js';
import { UserStore } from '../accounts/users.js';
import { withCodehostDatabase } from '../db/command-database.js';
import type { CodehostTables } from '../db/tables.js';
import { RecordInvalid } from '../record-invalid.js';
import { GroupStore } from './groups.js';
import {
  ACCESS_LEVELS,
  type AccessLevel,
  VISIBILITY_LEVELS,
  type VisibilityName,
} from './levels.js';
import { MemberExists, MemberStore } from './members.js';
import { ProjectStore } from './projects.js';

/** `--name=value` options of a command line, refusing any not in `allowed`. */
function options(args: string[], allowed: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const arg of args.filter((item) => item.startsWith('--'))) {
    const [name, ...rest] = arg.slice(2).split('=');
    if (!name || !allowed.includes(name) || rest.length === 0) {
      throw new UsageError(`Unknown or incomplete option ${arg}.`);
    }
    found.set(name, rest.join('='));
  }
  return found;
}

function visibilityOption(value: string | undefined) {
  if (value === undefined) return undefined;
  if (!(value in VISIBILITY_LEVELS)) {
    throw new UsageError('--visibility is private, internal or public.');
  }
  return VISIBILITY_LEVELS[value as VisibilityName];
}

function explain(error: unknown): string | undefined {
  if (error instanceof RecordInvalid || error instanceof MemberExists) return error.message;
  return undefined;
}

function stores(db: Kysely<CodehostTables>, context: CommandContext) {
  return {
    users: new UserStore(db, new PasswordHasher(context.config().security.passwordHash)),
    groups: new GroupStore(db),
    projects: new ProjectStore(db),
    members: new MemberStore(db),
  };
}

/** codehost's admin verbs for groups, projects and memberships. */
export const namespaceCommands: readonly Command[] = [
  {
    name: 'codehost-group-create',
    usage:
      'codehost-group-create <path> --owner=<username> [--name=<name>] [--visibility=private|internal|public] [--parent=<full path>]',
    summary: 'Create a codehost group owned by a user.',
    details:
      'The name defaults to the path; visibility to private. With --parent the group is a subgroup of that group (given by its full path).',
    example: 'platform --owner=alice',
    run: (args, context) => {
      const [path] = positional(args, 1) as [string];
      const given = options(args, ['owner', 'name', 'visibility', 'parent']);
      const ownerName = given.get('owner');
      if (!ownerName) throw new UsageError('--owner is required.');
      const visibilityLevel = visibilityOption(given.get('visibility'));
      return withCodehostDatabase(context, explain, async (db) => {
        const { users, groups } = stores(db, context);
        const owner = await users.findByUsername(ownerName);
        if (!owner) return fail(context, `No user "${ownerName}".`);
        const parentPath = given.get('parent');
        const parent = parentPath ? await groups.findByFullPath(parentPath) : undefined;
        if (parentPath && !parent) return fail(context, `No group "${parentPath}".`);
        const group = await groups.create(
          {
            name: given.get('name') ?? path,
            path,
            ...(visibilityLevel !== undefined ? { visibilityLevel } : {}),
            ...(parent ? { parent } : {}),
          },
          owner.id,
        );
        context.stdout.write(
          `Created group ${group.full_path} (id ${group.id}), owned by ${owner.username}.\n`,
        );
        return 0;
      });
    },
  },
  {
    name: 'codehost-project-create',
    usage: [
      'codehost-project-create <username>/<path> [--name=<name>] [--visibility=private|internal|public] [--creator=<username>]',
      'codehost-project-create <group path>/<path> --creator=<username> [--name=<name>] [--visibility=private|internal|public]',
    ],
    summary: "Create a codehost project in a group or a user's namespace.",
    details:
      "In a user's namespace the creator defaults to that user; a group has no such default, so --creator is required there. The name defaults to the path; visibility to private.",
    example: 'platform/api --creator=alice',
    run: (args, context) => {
      const [fullPath] = positional(args, 1) as [string];
      const given = options(args, ['name', 'visibility', 'creator']);
      const cut = fullPath.lastIndexOf('/');
      if (cut <= 0) throw new UsageError('Give the project as <namespace>/<path>.');
      const visibilityLevel = visibilityOption(given.get('visibility'));
      return withCodehostDatabase(context, explain, async (db) => {
        const { users, groups, projects } = stores(db, context);
        const namespacePath = fullPath.slice(0, cut);
        const namespace =
          (await groups.findByFullPath(namespacePath)) ??
          (await users
            .findByUsername(namespacePath)
            .then((user) => (user ? groups.personalNamespace(user.id) : undefined)));
        if (!namespace) return fail(context, `No group or user "${namespacePath}".`);
        const creatorName = given.get('creator');
        const creator = creatorName ? await users.findByUsername(creatorName) : undefined;
        if (creatorName && !creator) return fail(context, `No user "${creatorName}".`);
        const creatorId = creator?.id ?? namespace.owner_id;
        if (creatorId === null) return fail(context, 'A project in a group needs --creator.');
        const project = await projects.create(
          {
            namespace,
            path: fullPath.slice(cut + 1),
            ...(given.has('name') ? { name: given.get('name') as string } : {}),
            ...(visibilityLevel !== undefined ? { visibilityLevel } : {}),
          },
          creatorId,
        );
        context.stdout.write(`Created project ${project.full_path} (id ${project.id}).\n`);
        return 0;
      });
    },
  },
  {
    name: 'codehost-member-add',
    usage:
      'codehost-member-add group|project <full path> <username> guest|reporter|developer|master|owner',
    summary: 'Make a user a member of a codehost group or project.',
    details: 'A project has no owner level: its access levels are guest to master.',
    example: 'project platform/api bob developer',
    run: (args, context) => {
      const [kind, fullPath, username, levelName] = positional(args, 4) as [
        string,
        string,
        string,
        string,
      ];
      if (kind !== 'group' && kind !== 'project')
        throw new UsageError('The first argument is group or project.');
      const level = ACCESS_LEVELS[levelName as keyof typeof ACCESS_LEVELS] as
        | AccessLevel
        | undefined;
      if (level === undefined || (kind === 'project' && level === ACCESS_LEVELS.owner)) {
        throw new UsageError(
          kind === 'project'
            ? 'A project access level is guest, reporter, developer or master.'
            : 'An access level is guest, reporter, developer, master or owner.',
        );
      }
      return withCodehostDatabase(context, explain, async (db) => {
        const { users, groups, projects, members } = stores(db, context);
        const user = await users.findByUsername(username);
        if (!user) return fail(context, `No user "${username}".`);
        const source =
          kind === 'group'
            ? await groups.findByFullPath(fullPath)
            : await projects.findByFullPath(fullPath);
        if (!source) return fail(context, `No ${kind} "${fullPath}".`);
        await members.add(kind, source.id, user.id, level);
        context.stdout.write(
          `${user.username} is now ${levelName} of ${kind} ${source.full_path}.\n`,
        );
        return 0;
      });
    },
  },
];

function fail(context: CommandContext, message: string): number {
  context.stderr.write(`${message}\n`);
  return 1;
}
