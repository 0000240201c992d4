/**
 * A codehost server for the load benchmarks: the built program (what `npm start`
 * runs) in its own process, on a fresh SQLite file or PostgreSQL database, with an
 * account, a registered application and as many tokens as the runs will spend.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PasswordHasher } from '../src/codehost/accounts/passwords.js';
import { UserStore } from '../src/codehost/accounts/users.js';
import { codehost } from '../src/codehost/app.js';
import type { CodehostTables } from '../src/codehost/db/tables.js';
import { GroupStore } from '../src/codehost/namespaces/groups.js';
import { ProjectStore } from '../src/codehost/namespaces/projects.js';
import { ApplicationStore } from '../src/codehost/oauth/applications.js';
import { TokenStore } from '../src/codehost/oauth/tokens.js';
import { openDatabase } from '../src/platform/db/connection.js';
import { migrateToLatest } from '../src/platform/db/migrations.js';
import { OutboundPolicy } from '../src/platform/http/outbound.js';
import { loadProgramConfig } from '../src/program.js';
import { freePort } from '../test/codehost/helpers.js';
import { createPostgresDatabase, startProgram } from './processes.js';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface BenchServer {
  url: string;
  username: string;
  password: string;
  clientId: string;
  clientSecret: string;
  /** An access token with the `api` scope, for the API runs. */
  accessToken: string;
  /** Unused refresh tokens, one per refresh-grant request. */
  refreshTokens: string[];
  /** A private project in a group of the user's, for the notification settings runs. */
  projectId: number;
  /** The database's address, on PostgreSQL. */
  postgresUrl: string | undefined;
  /** Another instance of the program on the same database, reached through `databaseUrl`. */
  startInstance(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }>;
  stop(): Promise<void>;
}

export async function startBenchServer(options: {
  kind: DatabaseKind;
  postgresAdminUrl: string;
  refreshTokens: number;
  /** More settings for the server, to compare one against another. */
  env?: Record<string, string>;
}): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'codehost-bench-'));
  const postgres =
    options.kind === 'postgres'
      ? await createPostgresDatabase(options.postgresAdminUrl, 'codehost')
      : undefined;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    CODEHOST_PORT: String(port),
    CODEHOST_PUBLIC_URL: url,
    // One client address sends every request; the per-address limit would stop it.
    RATE_LIMIT_CREDENTIALS_PER_MINUTE: '100000',
    LOG_LEVEL: 'info',
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    ...options.env,
  };

  // Seed through the service's own stores, before the server opens the database.
  const config = loadProgramConfig(env);
  const database = openDatabase<CodehostTables>(config.services.codehost.database);
  const seeded = await (async () => {
    await migrateToLatest(database, codehost.migrations);
    const password = randomBytes(12).toString('hex');
    const users = new UserStore(database.db, new PasswordHasher(config.security.passwordHash));
    const user = await users.create({
      username: 'bench',
      name: 'Bench User',
      email: 'bench@example.com',
      password,
      isAdmin: false,
    });
    const { application, secret } = await new ApplicationStore(
      database.db,
      new OutboundPolicy([]),
    ).create(user.id, {
      name: 'Bench client',
      redirectUris: 'https://client.example/callback',
      scopes: ['api', 'read_user'],
      confidential: true,
    });
    const accessToken = (
      await new TokenStore(database.db).issueToken({
        userId: user.id,
        applicationId: application.id,
        grantId: null,
        scopes: ['api'],
        withRefreshToken: false,
      })
    ).accessToken;
    const group = await new GroupStore(database.db).create(
      { name: 'Bench group', path: 'bench-group' },
      user.id,
    );
    const project = await new ProjectStore(database.db).create(
      { name: 'Bench project', namespace: group },
      user.id,
    );
    const refreshTokens: string[] = [];
    await database.db.transaction().execute(async (trx) => {
      const inTransaction = new TokenStore(trx);
      for (let index = 0; index < options.refreshTokens; index += 1) {
        const issued = await inTransaction.issueToken({
          userId: user.id,
          applicationId: application.id,
          grantId: null,
          scopes: ['api'],
          withRefreshToken: true,
        });
        refreshTokens.push(issued.refreshToken as string);
      }
    });
    return {
      password,
      clientId: application.uid,
      clientSecret: secret,
      accessToken,
      refreshTokens,
      projectId: project.id,
    };
  })().finally(() => database.close());

  const program = await startProgram('codehost', url, dataDir, env);

  return {
    url,
    username: 'bench',
    ...seeded,
    postgresUrl: postgres?.url,
    async startInstance(databaseUrl) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const instance = await startProgram('codehost', url, dataDir, {
        ...env,
        CODEHOST_PORT: String(port),
        CODEHOST_PUBLIC_URL: url,
        DATABASE_URL: databaseUrl,
      });
      return { url, stop: () => instance.stop() };
    },
    async stop() {
      await program.stop();
      await postgres?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
