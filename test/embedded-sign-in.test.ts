import { afterEach, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../src/codehost/accounts/passwords.js';
import { UserStore } from '../src/codehost/accounts/users.js';
import { codehost } from '../src/codehost/app.js';
import { codehostMigrations } from '../src/codehost/db/migrations.js';
import type { CodehostTables } from '../src/codehost/db/tables.js';
import { embeddedSignIn } from '../src/embedded-sign-in.js';
import { type DatabaseHandle, openDatabase } from '../src/platform/db/connection.js';
import { migrateToLatest } from '../src/platform/db/migrations.js';
import type { RunningService } from '../src/platform/runner.js';
import { matchesSecretHash } from '../src/platform/security/secrets.js';
import type { ServiceDefinition } from '../src/platform/service.js';
import { loadProgramConfig, type ProgramConfig } from '../src/program.js';
import { refdata } from '../src/refdata/app.js';
import { FAST_HASHING } from './codehost/helpers.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase, withDatabase } from './harness.js';

/** What the start-up hook sees when codehost is already running. */
const codehostRunning = (config: ProgramConfig) => [
  { name: 'codehost', config: config.services.codehost } as RunningService,
];

describe.each(DATABASE_KINDS)(
  'npm start: refdata signs in through the codehost beside it, on %s',
  (kind) => {
    let database: TestDatabase;
    let handle: DatabaseHandle<CodehostTables>;
    afterEach(async () => {
      await handle?.close();
      await database?.drop();
    });

    async function setUp(env: Record<string, string> = {}) {
      database = await createTestDatabase(kind, 'embedded');
      handle = openDatabase<CodehostTables>(database.config);
      await migrateToLatest(handle, codehostMigrations);
      const config = (): ProgramConfig =>
        withDatabase(
          loadProgramConfig({ ...FAST_HASHING, REFDATA_PORT: '9381', ...env }),
          'codehost',
          database.config,
        );
      const admin = async () =>
        new UserStore(handle.db, new PasswordHasher(config().security.passwordHash)).create({
          username: 'root',
          name: 'Administrator',
          email: 'admin@example.com',
          password: 'a long enough password',
          isAdmin: true,
        });
      return { config, admin };
    }

    /** The configuration the service starts with, after the hook. */
    const start = async (
      config: ProgramConfig,
      definition: ServiceDefinition,
      running = codehostRunning(config),
    ) =>
      ((await embeddedSignIn().beforeStart?.(definition, config, running)) ??
        config) as ProgramConfig;

    it('registers refdata as an application of codehost’s administrator, with a new secret each start', async () => {
      const { config, admin } = await setUp();
      const root = await admin();
      const first = await start(config(), refdata as ServiceDefinition);
      const oidc = first.settings.refdata.web.oidc;
      expect(oidc).toMatchObject({
        issuer: first.services.codehost.publicUrl,
        name: 'codehost',
        rolesClaim: 'groups',
        gitlabAdmins: true,
        roleMap: { Reader: ['*'], Creator: ['refdata/creators'], Reviewer: ['refdata/reviewers'] },
      });
      const applications = () =>
        handle.db
          .selectFrom('oauth_applications')
          .selectAll()
          .where('name', '=', 'refdata')
          .execute();
      const [registered] = await applications();
      expect(registered).toMatchObject({
        uid: oidc?.clientId,
        owner_id: root.id,
        redirect_uri: 'http://localhost:9381/sign-in/callback',
        post_logout_redirect_uris: 'http://localhost:9381/',
        confidential: 1,
      });
      expect(registered?.scopes.split(' ').sort()).toEqual([
        'email',
        'openid',
        'profile',
        'read_user',
      ]);
      expect(matchesSecretHash(oidc?.clientSecret ?? '', registered?.secret_hash ?? '')).toBe(true);

      // The next start keeps the application and replaces its secret.
      const second = await start(config(), refdata as ServiceDefinition);
      const after = await applications();
      expect(after).toHaveLength(1);
      expect(second.settings.refdata.web.oidc?.clientId).toBe(oidc?.clientId);
      expect(matchesSecretHash(oidc?.clientSecret ?? '', after[0]?.secret_hash ?? '')).toBe(false);
      expect(
        matchesSecretHash(
          second.settings.refdata.web.oidc?.clientSecret ?? '',
          after[0]?.secret_hash ?? '',
        ),
      ).toBe(true);
    });

    it('leaves refdata alone when a provider is configured, codehost is not running, or it has no administrator', async () => {
      const { config, admin } = await setUp({
        REFDATA_OIDC_ISSUER: 'https://keycloak.example/realms/plant',
        REFDATA_OIDC_CLIENT_ID: 'refdata',
        REFDATA_OIDC_CLIENT_SECRET: 'secret',
      });
      await admin();
      const configured = await start(config(), refdata as ServiceDefinition);
      expect(configured.settings.refdata.web.oidc?.issuer).toBe(
        'https://keycloak.example/realms/plant',
      );

      const alone = withDatabase(
        loadProgramConfig({ ...FAST_HASHING }),
        'codehost',
        database.config,
      );
      const aloneStarted = await start(alone, refdata as ServiceDefinition, []);
      expect(aloneStarted.settings.refdata.web.oidc).toBeUndefined();
      const codehostStarted = await start(alone, codehost as ServiceDefinition);
      expect(codehostStarted.settings.refdata.web.oidc).toBeUndefined();
      expect(await handle.db.selectFrom('oauth_applications').select('id').execute()).toEqual([]);
    });

    it('registers nothing while codehost has no administrator', async () => {
      const { config } = await setUp();
      const fresh = await start(config(), refdata as ServiceDefinition);
      expect(fresh.settings.refdata.web.oidc).toBeUndefined();
    });
  },
);
