import { type Command, type CommandContext, UsageError } from '../../platform/cli/command.js';
import { positional } from '../accounts/commands.js';
import { withCodehostDatabase } from '../db/command-database.js';
import { KEY_SET_MAX_AGE_SECONDS } from './routes.js';
import {
  RETIRED_KEY_PUBLISHED_MS,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  SigningKeyStore,
} from './signing-keys.js';

/**
 * A new key is published this long before it signs: twice what relying parties
 * may cache the key set for, so every cache has seen it first.
 */
const DEFAULT_PUBLISH_FOR_SECONDS = 2 * KEY_SET_MAX_AGE_SECONDS;

function option(args: string[], name: string): string | undefined {
  return args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function refuseUnknownOptions(args: string[], known: readonly string[]): void {
  const unknown = args.find(
    (arg) => arg.startsWith('--') && !known.some((name) => arg.startsWith(`--${name}=`)),
  );
  if (unknown) throw new UsageError(`Unknown option ${unknown}.`);
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Runs an action on the key store of codehost's database (migrated first). */
function withKeys(
  context: CommandContext,
  action: (store: SigningKeyStore) => Promise<number>,
): Promise<number> {
  return withCodehostDatabase(
    context,
    () => undefined,
    (db) => action(new SigningKeyStore(db)),
  );
}

/** codehost's OpenID Connect signing keys: list, rotate, remove. */
export const oidcCommands: readonly Command[] = [
  {
    name: 'codehost-oidc-keys',
    usage: 'codehost-oidc-keys',
    summary: 'List the OpenID Connect signing keys: which signs, which are published.',
    example: '',
    run(args, context) {
      positional(args, 0);
      refuseUnknownOptions(args, []);
      return withKeys(context, async (store) => {
        // Every state read at one moment, so a key never shows as two things at once.
        for (const { row, state, published, signsFrom } of await store.states()) {
          const said = {
            signing: 'signing',
            upcoming: `published, signs from ${iso(signsFrom)}`,
            retired: published ? 'retired, still published' : 'retired, no longer published',
            superseded: 'superseded before it signed (a newer key took over first), not published',
          }[state];
          context.stdout.write(`${row.kid}  ${row.alg}  generation ${row.generation}  ${said}\n`);
        }
        return 0;
      });
    },
  },
  {
    name: 'codehost-oidc-key-rotate',
    usage: `codehost-oidc-key-rotate [--alg=${SIGNING_ALGORITHMS.join('|')}] [--publish-for=<seconds>]`,
    summary: 'Add an OpenID Connect signing key that takes over from the current one.',
    details: `The new key is published at once and signs after --publish-for seconds (default ${DEFAULT_PUBLISH_FOR_SECONDS}, so that clients caching the key set see it first); the old key stays published ${RETIRED_KEY_PUBLISHED_MS / 3_600_000} h after that. --alg defaults to RS256.`,
    example: '--alg=ES256 --publish-for=3600',
    run(args, context) {
      positional(args, 0);
      refuseUnknownOptions(args, ['alg', 'publish-for']);
      const algorithm = option(args, 'alg') ?? 'RS256';
      if (!(SIGNING_ALGORITHMS as readonly string[]).includes(algorithm)) {
        throw new UsageError(`--alg is one of ${SIGNING_ALGORITHMS.join(', ')}.`);
      }
      const publishFor = Number(option(args, 'publish-for') ?? DEFAULT_PUBLISH_FOR_SECONDS);
      if (!Number.isInteger(publishFor) || publishFor < 0 || publishFor > 30 * 86_400) {
        throw new UsageError('--publish-for is a whole number of seconds from 0 to 2592000.');
      }
      return withKeys(context, async (store) => {
        await store.ensureKey();
        const key = await store.rotate(algorithm as SigningAlgorithm, publishFor * 1000);
        context.stdout.write(
          `${key.kid} (${key.alg}) is published now and signs from ${iso(Number(key.signs_from))}.\n`,
        );
        return 0;
      });
    },
  },
  {
    name: 'codehost-oidc-key-remove',
    usage: 'codehost-oidc-key-remove <kid>',
    summary: 'Withdraw a signing key at once (a compromised one).',
    details:
      'What the key signed stops verifying. The key that signs now cannot be removed: rotate with --publish-for=0 first. The key IDs are those codehost-oidc-keys lists.',
    example: 'Yl3kX0tq2v1yb9y6',
    run(args, context) {
      const [kid] = positional(args, 1) as [string];
      refuseUnknownOptions(args, []);
      return withKeys(context, async (store) => {
        if (await store.remove(kid)) {
          context.stdout.write(`${kid} is removed.\n`);
          return 0;
        }
        context.stderr.write(
          `No key ${kid} can be removed: it is unknown or it is the one that signs (rotate with --publish-for=0 first).\n`,
        );
        return 1;
      });
    },
  },
];
