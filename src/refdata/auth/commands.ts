import { type Command, UsageError } from '../../platform/cli/command.js';
import { serviceSettings } from '../../platform/config.js';
import type { RefdataSettings } from '../config.js';
import { ROLES, rolesFrom } from './roles.js';
import { loadOrCreateSigningKey } from './signing-key.js';
import { mintToken } from './tokens.js';

/** refdata's admin verb: an access token from its own key, for the embedded set-up. */
export const authCommands: readonly Command[] = [
  {
    name: 'refdata-token-mint',
    usage: `refdata-token-mint <subject> --roles=${ROLES.join(',')} [--lifetime=<seconds>]`,
    summary: 'Print an access token for refdata, signed with its own key.',
    details: `The token is valid for --lifetime seconds (default 3600, at most REFDATA_TOKEN_MAX_LIFETIME_SECONDS, 366 days unless set). Send it as "Authorization: Bearer <token>". Not available when REFDATA_JWKS_URL names another identity provider: ask that one for a token.`,
    example: 'alice --roles=Creator,Reviewer',
    async run(args, context) {
      const subjects = args.filter((arg) => !arg.startsWith('--'));
      if (subjects.length !== 1 || !subjects[0]) throw new UsageError('Give one subject.');
      const unknown = args.find(
        (arg) =>
          arg.startsWith('--') && !arg.startsWith('--roles=') && !arg.startsWith('--lifetime='),
      );
      if (unknown) throw new UsageError(`Unknown option ${unknown}.`);
      const rolesArg = args.find((arg) => arg.startsWith('--roles='))?.slice(8) ?? '';
      const names = rolesArg.split(',').filter(Boolean);
      const roles = rolesFrom(names);
      if (roles.length === 0 || roles.length !== names.length) {
        throw new UsageError(`--roles takes one or more of ${ROLES.join(', ')}.`);
      }
      const lifetimeArg = args.find((arg) => arg.startsWith('--lifetime='))?.slice(11) ?? '3600';
      const lifetime = Number(lifetimeArg);
      const tokens = serviceSettings<RefdataSettings>(context.config(), 'refdata').tokens;
      // The service refuses tokens that live longer: minting one would be no use.
      if (!Number.isInteger(lifetime) || lifetime < 60 || lifetime > tokens.maxLifetimeSeconds) {
        throw new UsageError(
          `--lifetime is a whole number of seconds from 60 to ${tokens.maxLifetimeSeconds}.`,
        );
      }
      if (tokens.jwksUrl) {
        context.stderr.write(
          'REFDATA_JWKS_URL is set: refdata accepts tokens from that identity provider only; ask it for a token.\n',
        );
        return 1;
      }
      const key = await loadOrCreateSigningKey(tokens.signingKeyFile);
      context.stderr.write(
        `Signed with ${tokens.signingKeyFile}; iss ${tokens.issuer}, aud ${tokens.audience}, valid ${lifetime} s.\n`,
      );
      context.stdout.write(
        `${await mintToken(key, tokens, { subject: subjects[0], roles, lifetimeSeconds: lifetime })}\n`,
      );
      return 0;
    },
  },
];
