import type { Kysely } from 'kysely';
import type { CodehostTables } from './codehost/db/tables.js';
import { ResourceServerStore } from './codehost/oauth/resource-servers.js';
import { ensureTrustedClient } from './codehost/oauth/trusted-clients.js';
import {
  type Config,
  serviceSection,
  serviceSettings,
  withServiceSettings,
} from './platform/config.js';
import { openDatabase } from './platform/db/connection.js';
import { OutboundPolicy } from './platform/http/outbound.js';
import type { RunningService, StartHooks } from './platform/runner.js';
import { DEFAULT_ROLE_MAP, type RefdataSettings, roleMap } from './refdata/config.js';
import { BACKCHANNEL_LOGOUT_PATH } from './refdata/web/backchannel-logout.js';

/**
 * The embedded default: when refdata starts beside codehost and no identity
 * provider is configured, refdata signs people in through that codehost. It is
 * registered there as an OAuth application (as an administrator would do on the
 * Applications page) with a fresh secret each start, and refdata starts with a
 * configuration naming it, as any relying party would be configured. The
 * services still meet only over OpenID Connect: this module, like program.ts,
 * is where the two are put side by side.
 */
export function embeddedSignIn(): StartHooks {
  return {
    async beforeStart(definition, config: Config, running: readonly RunningService[]) {
      if (definition.name !== 'refdata') return undefined;
      const section = serviceSection(config, 'refdata');
      const settings = serviceSettings<RefdataSettings>(config, 'refdata');
      if (settings.web.oidc) return undefined;
      const codehost = running.find((service) => service.name === 'codehost');
      if (!codehost) return undefined;
      const database = openDatabase(codehost.config.database);
      try {
        const client = await ensureTrustedClient(
          database.db as Kysely<CodehostTables>,
          {
            name: 'refdata',
            redirectUri: `${section.publicUrl}/sign-in/callback`,
            postLogoutRedirectUri: `${section.publicUrl}/`,
            // Signing out of codehost signs out of refdata too (OpenID Connect
            // Back-Channel Logout): refdata's endpoint for it, posted to from codehost.
            backchannelLogoutUri: `${section.publicUrl}${BACKCHANNEL_LOGOUT_PATH}`,
            scopes: ['openid', 'profile', 'email', 'read_user'],
          },
          OutboundPolicy.of(config),
        );
        if (!client) return undefined;
        // refdata's API is a resource codehost issues JWT access tokens for (RFC
        // 8707), named by refdata's address: a client asks with resource=<that>.
        await new ResourceServerStore(database.db as Kysely<CodehostTables>).ensure({
          identifier: section.publicUrl,
          name: 'refdata',
        });
        const oidc = {
          issuer: codehost.config.publicUrl,
          clientId: client.clientId,
          clientSecret: client.clientSecret,
          name: 'codehost',
          rolesClaim: 'groups',
          roleMap: roleMap(DEFAULT_ROLE_MAP),
          // codehost's administrators hold every refdata role.
          gitlabAdmins: true,
        };
        return withServiceSettings(config, 'refdata', {
          ...settings,
          web: { ...settings.web, oidc },
        });
      } finally {
        await database.close();
      }
    },
  };
}
