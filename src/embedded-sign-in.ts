import type { Kysely } from 'kysely';
import type { CodehostTables } from './codehost/db/tables.js';
import { ensureTrustedClient } from './codehost/oauth/trusted-clients.js';
import { type Config, DEFAULT_ROLE_MAP, roleMap } from './platform/config.js';
import { openDatabase } from './platform/db/connection.js';
import type { RunningService, StartHooks } from './platform/runner.js';

/**
 * The embedded default: when refdata starts beside codehost and no identity
 * provider is configured, refdata signs people in through that codehost. It is
 * registered there as an OAuth application (as an administrator would do on the
 * Applications page) with a fresh secret each start, and configured as any
 * relying party would be. The services still meet only over OpenID Connect:
 * this module, like program.ts, is where the two are put side by side.
 */
export function embeddedSignIn(config: Config): StartHooks {
  return {
    async beforeStart(definition, running: readonly RunningService[]) {
      if (definition.name !== 'refdata' || config.refdata.web.oidc) return;
      const codehost = running.find((service) => service.name === 'codehost');
      if (!codehost) return;
      const refdataUrl = config.services.refdata.publicUrl;
      const database = openDatabase(config.services.codehost.database);
      try {
        const client = await ensureTrustedClient(database.db as Kysely<CodehostTables>, {
          name: 'refdata',
          redirectUri: `${refdataUrl}/sign-in/callback`,
          postLogoutRedirectUri: `${refdataUrl}/`,
          scopes: ['openid', 'profile', 'email', 'read_user'],
        });
        if (!client) return;
        config.refdata.web.oidc = {
          issuer: config.services.codehost.publicUrl,
          clientId: client.clientId,
          clientSecret: client.clientSecret,
          name: 'codehost',
          rolesClaim: 'groups',
          roleMap: roleMap(DEFAULT_ROLE_MAP),
          // codehost's administrators hold every refdata role.
          gitlabAdmins: true,
        };
      } finally {
        await database.close();
      }
    },
  };
}
