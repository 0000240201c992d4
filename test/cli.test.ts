import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../src/codehost/accounts/passwords.js';
import { UserStore } from '../src/codehost/accounts/users.js';
import { createCodehost } from '../src/codehost/context.js';
import type { CodehostTables } from '../src/codehost/db/tables.js';
import { userFacts } from '../src/codehost/oidc/claims.js';
import { openDatabase } from '../src/platform/db/connection.js';
import { allCommands, loadProgramConfig, runProgram } from '../src/program.js';
import { rolesFromClaims } from '../src/refdata/auth/identity-provider.js';
import { DEFAULT_ROLE_MAP, roleMap } from '../src/refdata/config.js';
import type { RefdataTables } from '../src/refdata/db/tables.js';

function captured() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

async function run(argv: string[], env: Record<string, string> = {}, envFile?: string) {
  const stdout = captured();
  const stderr = captured();
  const status = await runProgram(argv, {
    env,
    stdout: stdout.stream,
    stderr: stderr.stream,
    ...(envFile ? { envFile } : {}),
  });
  // An admin command first says which service's data directory and database it
  // works on; the rest is what the command itself said.
  const [first = '', ...rest] = stderr.text().split(/(?<=\n)/);
  const context = /^(codehost|refdata): data directory .+; database .+\n$/.test(first) ? first : '';
  return {
    status,
    stdout: stdout.text(),
    stderr: context ? rest.join('') : stderr.text(),
    context,
  };
}

const temporaryDataDir = () => mkdtempSync(join(tmpdir(), 'chrd-cli-'));

describe('command line, in process', () => {
  it('lists every command in 80 columns, and each explains itself with --help', async () => {
    const help = await run(['help']);
    expect(help.status).toBe(0);
    const listed = [...help.stdout.matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1]);
    expect(listed).toEqual([...allCommands().map((command) => command.name), 'help']);
    for (const line of help.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);

    for (const command of allCommands()) {
      const own = await run([command.name, '--help']);
      expect(own.status, command.name).toBe(0);
      expect(own.stderr, command.name).toBe('');
      expect(own.stdout).toMatch(new RegExp(`^Usage: codehost-refdata ${command.name}\\b`));
      expect(own.stdout).toContain(`\nExample:\n  codehost-refdata ${command.name}`);
      for (const line of own.stdout.split('\n'))
        expect(line.length, `${command.name}: ${line}`).toBeLessThanOrEqual(80);
      // `help <command>` says the same.
      expect((await run(['help', command.name])).stdout).toBe(own.stdout);
    }
    expect((await run(['start', '--help'])).stdout).toMatch(
      /^Usage: codehost-refdata start \[codehost\|refdata \.\.\.\]/,
    );
    // A group has no owner to default to: the usage says --creator is required there.
    expect((await run(['codehost-project-create', '-h'])).stdout).toMatch(
      /^ {7}codehost-refdata codehost-project-create <group path>\/<path>\s+--creator=<username>/m,
    );
    expect((await run(['help', 'frobnicate'])).status).toBe(2);

    const bare = await run([]);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(/^Usage: codehost-refdata <command>/);
    expect(bare.stdout).toBe('');
  });

  it('rejects an unknown command and an unknown service with status 2', async () => {
    const unknown = await run(['frobnicate']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown command "frobnicate"/);
    const badService = await run(['migrate', 'gitlab'], { DATA_DIR: temporaryDataDir() });
    expect(badService.status).toBe(2);
    expect(badService.stderr).toMatch(/^Unknown service "gitlab"; choose from codehost, refdata\./);
    expect(badService.stderr).toContain('More: codehost-refdata migrate --help\n');
  });

  it('never runs a command asked for its help, wherever --help stands', async () => {
    const dataDir = temporaryDataDir();
    const result = await run(['codehost-user-create', 'alice', 'alice@example.org', '--help'], {
      DATA_DIR: dataDir,
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: codehost-refdata codehost-user-create/);
    expect(existsSync(join(dataDir, 'codehost.sqlite'))).toBe(false);
  });

  it.each([
    ['start', { CODEHOST_PORT: 'abc' }, 'CODEHOST_PORT="abc"'],
    ['start', { LOG_LEVEL: 'chatty' }, 'LOG_LEVEL="chatty"'],
    ['migrate', { DATABASE_URL: 'mysql://u:pw@h/db' }, 'DATABASE_URL="mysql://u:***@h/db"'],
  ])(
    '%s stops on bad configuration with one line naming the variable',
    async (command, env, named) => {
      const result = await run([command], env);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        `Invalid configuration: ${named} is not accepted; it accepts`,
      );
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stdout).toBe('');
    },
  );

  it('reads the .env file, with the environment winning over it', async () => {
    const directory = temporaryDataDir();
    const envFile = join(directory, '.env');
    writeFileSync(envFile, `DATA_DIR=${directory}/from-file\nLOG_LEVEL=shouty\n`);

    const fromFile = await run(['migrate', 'codehost'], {}, envFile);
    expect(fromFile.status).toBe(1);
    expect(fromFile.stderr).toContain('LOG_LEVEL="shouty"');

    const overridden = await run(['migrate', 'codehost'], { LOG_LEVEL: 'warn' }, envFile);
    expect(overridden.status).toBe(0);
    expect(existsSync(join(directory, 'from-file', 'codehost.sqlite'))).toBe(true);
  });

  it('migrates the chosen services and says so', async () => {
    const dataDir = temporaryDataDir();
    const result = await run(['migrate', 'refdata'], { DATA_DIR: dataDir });
    expect(result.status).toBe(0);
    const database = `SQLite ${join(dataDir, 'refdata.sqlite')}`;
    expect(result.stdout).toBe(
      `refdata: applied 0001_resources, 0002_library_terms_index, 0003_search_index, 0004_removed_history_and_replacements, 0005_fill_in_derived_fields, 0006_browser_sessions, 0007_search_change_log, 0008_people, 0009_sparql_store_sync, 0010_change_events_and_webhooks, 0011_name_scopes, 0012_import_jobs, 0013_releases, 0014_review, 0015_generalizations, 0016_languages, 0017_personal_access_tokens, 0018_database_identity, 0019_release_members_by_resource to ${database}\n`,
    );
    expect(existsSync(join(dataDir, 'refdata.sqlite'))).toBe(true);
    const again = await run(['migrate', 'refdata'], { DATA_DIR: dataDir });
    expect(again.stdout).toBe(`refdata: database ${database} is up to date\n`);
    expect(existsSync(join(dataDir, 'codehost.sqlite'))).toBe(false);
  });
});

describe('command line, as a real process', () => {
  const children: ChildProcess[] = [];
  const blockers: Server[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const blocker of blockers.splice(0)) blocker.close();
  });

  function start(env: Record<string, string>, args: string[] = []) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'start', ...args], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const output = () => ({ stdout, stderr });
    const waitForLines = async (count: number) => {
      for (let waited = 0; waited < 15_000; waited += 50) {
        if (stdout.split('\n').filter((line) => line.includes(' (listening on ')).length >= count) {
          return stdout.split('\n');
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no start-up lines; stdout: ${stdout}; stderr: ${stderr}`);
    };
    return { child, exited, output, waitForLines };
  }

  it('starts both services, says where they are, serves them, and stops cleanly on SIGTERM', async () => {
    const dataDir = temporaryDataDir();
    const service = start({ DATA_DIR: dataDir, CODEHOST_PORT: '0', REFDATA_PORT: '0' });
    const lines = await service.waitForLines(2);

    // The first lines printed say where each service is reached (its public
    // address: localhost, the name browsers take passkeys and cookies under),
    // where it listens, its docs, its database.
    const pattern =
      /^(codehost|refdata) at (http:\/\/localhost:\d+) \(listening on 127\.0\.0\.1:\d+\), API docs at \2\/docs, database SQLite (.+)$/;
    const [first, second] = [pattern.exec(lines[0] ?? ''), pattern.exec(lines[1] ?? '')];
    expect(first?.[1]).toBe('codehost');
    expect(second?.[1]).toBe('refdata');
    expect(first?.[3]).toBe(join(dataDir, 'codehost.sqlite'));

    for (const match of [first, second]) {
      const url = match?.[2] ?? '';
      expect((await fetch(`${url}/-/health`)).status).toBe(200);
      const ready = await fetch(`${url}/-/ready`);
      expect(await ready.json()).toEqual({ status: 'ok', database: 'ok' });
      const docs = await fetch(`${url}/docs/`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('swagger-ui');
    }

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    const { stdout } = service.output();
    expect(stdout).toContain('"msg":"shutting down"');
    // First start on an empty database: codehost's administrator, as GitLab's root.
    const passwordFile = join(dataDir, 'codehost-initial-root-password');
    expect(stdout).toContain(
      `administrator account "root"; its initial password is in ${passwordFile}`,
    );
    expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
    // How to call refdata at all, where the walk-through is, and where an empty instance starts.
    expect(stdout).toContain(
      'refdata API token: npm run cli -- refdata-token-mint <you> --roles=Creator,Reviewer. A first walk through both services: docs/getting-started.md. No library yet: http://localhost:8081 offers a Creator the CFIHOS v2.0 Core library to start from.',
    );
    expect(readFileSync(passwordFile, 'utf8')).toMatch(/^[A-Za-z0-9_-]{32}\n$/);
    // A cleanly closed SQLite database folds its write-ahead log back and removes it.
    expect(readdirSync(dataDir).sort()).toEqual([
      'codehost-initial-root-password',
      'codehost.sqlite',
      'refdata-signing-key.json',
      'refdata-webhook-key',
      'refdata.sqlite',
      'sparql-snapshots',
    ]);
    // A cleanly stopped instance keeps its SPARQL snapshot files for the next start, named
    // by their manifest, and lets the directory go (no owner left).
    const kept = readdirSync(join(dataDir, 'sparql-snapshots')).sort();
    expect(kept).toEqual([
      'manifest.json',
      expect.stringMatching(/^published-[0-9a-f]{8}\.nq$/),
      expect.stringMatching(/^working-[0-9a-f]{8}\.nq$/),
    ]);
    const manifest = JSON.parse(
      readFileSync(join(dataDir, 'sparql-snapshots', 'manifest.json'), 'utf8'),
    );
    expect(
      Object.values(manifest.views)
        .map((view) => (view as { file: string }).file)
        .sort(),
    ).toEqual(kept.slice(1));
    // Its password was chosen for it: the first sign-in asks for one of root's own.
    const database = openDatabase<CodehostTables>({
      kind: 'sqlite',
      file: join(dataDir, 'codehost.sqlite'),
    });
    try {
      const root = await database.db
        .selectFrom('users')
        .select('password_change_required')
        .where('username', '=', 'root')
        .executeTakeFirstOrThrow();
      expect(root.password_change_required).toBe(1);
    } finally {
      await database.close();
    }
    // refdata's own token signing key, readable only by its owner.
    expect(statSync(join(dataDir, 'refdata-signing-key.json')).mode & 0o777).toBe(0o600);
  });

  it('starts only the service named', async () => {
    const service = start({ DATA_DIR: temporaryDataDir(), REFDATA_PORT: '0' }, ['refdata']);
    const lines = await service.waitForLines(1);
    expect(lines[0]).toMatch(/^refdata at http:\/\/localhost:\d+ \(listening on /);
    service.child.kill('SIGINT');
    expect(await service.exited).toBe(0);
    expect(service.output().stdout).not.toContain('codehost at');
  });

  it('exits with one clear line when the configuration is bad', async () => {
    const service = start({ DATA_DIR: temporaryDataDir(), REFDATA_PORT: '99999' });
    expect(await service.exited).toBe(1);
    const { stderr, stdout } = service.output();
    expect(stderr).toMatch(
      /^Invalid configuration: REFDATA_PORT="99999" is not accepted; it accepts a whole number from 0 to 65535\.\n$/,
    );
    expect(stdout).toBe('');
  });

  it('exits with a clear line when a port is taken, leaving nothing running', async () => {
    const blocker = createServer();
    blockers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const service = start({
      DATA_DIR: temporaryDataDir(),
      CODEHOST_PORT: '0',
      REFDATA_PORT: String(port),
    });
    expect(await service.exited).toBe(1);
    expect(service.output().stderr).toMatch(/^refdata could not start: its port is already in use/);
  });
});

describe('codehost account commands', () => {
  it('creates a user, adds an e-mail, blocks, unblocks and resets the password', async () => {
    const env = {
      DATA_DIR: temporaryDataDir(),
      PASSWORD_HASH_MEMORY_KIB: '64',
      PASSWORD_HASH_ITERATIONS: '1',
    };
    const created = await run(
      ['codehost-user-create', 'alice', 'alice@example.com', '--name=Alice A', '--admin'],
      env,
    );
    expect(created.status).toBe(0);
    expect(created.stdout).toMatch(
      /^Created administrator alice \(id \d+\)\.\nPassword: [A-Za-z0-9_-]{32}\n$/,
    );
    const password = /Password: (\S+)/.exec(created.stdout)?.[1] ?? '';

    const duplicate = await run(['codehost-user-create', 'ALICE', 'other@example.com'], env);
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toBe('Username has already been taken\n');
    expect(duplicate.context).toBe(
      `codehost: data directory ${env.DATA_DIR}; database SQLite ${join(env.DATA_DIR as string, 'codehost.sqlite')}\n`,
    );

    expect(
      (await run(['codehost-user-add-email', 'alice', 'second@example.com'], env)).status,
    ).toBe(0);
    const taken = await run(['codehost-user-add-email', 'alice', 'SECOND@example.com'], env);
    expect(taken.stderr).toBe('Email has already been taken\n');
    expect((await run(['codehost-user-block', 'nobody'], env)).stderr).toBe('No user "nobody".\n');
    expect((await run(['codehost-user-block', 'alice'], env)).stdout).toBe(
      'alice is now blocked.\n',
    );
    expect((await run(['codehost-user-unblock', 'alice'], env)).stdout).toBe(
      'alice is now active.\n',
    );
    const reset = await run(['codehost-user-reset-password', 'alice'], env);
    const newPassword = /New password for alice: (\S+)/.exec(reset.stdout)?.[1];
    expect(newPassword).toBeDefined();
    expect(newPassword).not.toBe(password);
    expect((await run(['codehost-user-create', 'bob'], env)).status).toBe(2);
    // A name holds no control character: a line break in it would fake a line in the mails
    // and pages that show it.
    const twoLines = await run(
      ['codehost-user-create', 'carol', 'carol@example.com', '--name=Carol\nSubject: urgent'],
      env,
    );
    expect(twoLines.status).toBe(1);
    expect(twoLines.stderr).toBe(
      'Name may not hold control characters (U+000A, a line break or a tab among them)\n',
    );

    // The stored state is what the commands said: check it through the database.
    const database = openDatabase<CodehostTables>(
      loadProgramConfig(env).services.codehost.database,
    );
    try {
      const users = new UserStore(
        database.db,
        new PasswordHasher({ memoryKib: 64, iterations: 1, parallelism: 1 }),
      );
      const alice = await users.findByLogin('second@example.com');
      expect(alice?.username).toBe('alice');
      expect(alice?.is_admin).toBe(1);
      expect(alice?.state).toBe('active');
      expect(alice && (await users.checkPassword(alice, newPassword ?? ''))).toBe(true);
      expect(alice && (await users.checkPassword(alice, password))).toBe(false);
    } finally {
      await database.close();
    }
  });
});

describe('codehost group, project and member commands', () => {
  it('creates groups, subgroups and projects and adds members, refusing what the API refuses', async () => {
    const env = {
      DATA_DIR: temporaryDataDir(),
      PASSWORD_HASH_MEMORY_KIB: '64',
      PASSWORD_HASH_ITERATIONS: '1',
    };
    expect((await run(['codehost-user-create', 'carol', 'carol@example.com'], env)).status).toBe(0);
    expect((await run(['codehost-user-create', 'dave', 'dave@example.com'], env)).status).toBe(0);

    const group = await run(
      [
        'codehost-group-create',
        'ops',
        '--owner=carol',
        '--name=Operations',
        '--visibility=internal',
      ],
      env,
    );
    expect(group.stdout).toMatch(/^Created group ops \(id \d+\), owned by carol\.\n$/);
    const sub = await run(['codehost-group-create', 'infra', '--owner=carol', '--parent=ops'], env);
    expect(sub.stdout).toMatch(/^Created group ops\/infra /);
    const clash = await run(['codehost-group-create', 'dave', '--owner=carol'], env);
    expect(clash.status).toBe(1);
    expect(clash.stderr).toBe('path has already been taken\n');
    expect((await run(['codehost-group-create', 'x'], env)).status).toBe(2);
    expect(
      (await run(['codehost-group-create', 'x', '--owner=carol', '--colour=red'], env)).status,
    ).toBe(2);

    const inGroup = await run(
      ['codehost-project-create', 'ops/infra/deploy', '--creator=carol'],
      env,
    );
    expect(inGroup.stdout).toMatch(/^Created project ops\/infra\/deploy \(id \d+\)\.\n$/);
    const personal = await run(
      ['codehost-project-create', 'dave/notes', '--visibility=public'],
      env,
    );
    expect(personal.stdout).toMatch(/^Created project dave\/notes /);
    expect((await run(['codehost-project-create', 'ops/tool'], env)).stderr).toBe(
      'A project in a group needs --creator.\n',
    );
    expect((await run(['codehost-project-create', 'nowhere/tool'], env)).stderr).toBe(
      'No group or user "nowhere".\n',
    );

    expect(
      (await run(['codehost-member-add', 'group', 'ops', 'dave', 'developer'], env)).stdout,
    ).toBe('dave is now developer of group ops.\n');
    const twice = await run(['codehost-member-add', 'group', 'ops', 'dave', 'master'], env);
    expect(twice.stderr).toBe('Member already exists\n');
    expect(
      (await run(['codehost-member-add', 'project', 'ops/infra/deploy', 'dave', 'owner'], env))
        .status,
    ).toBe(2);
    expect(
      (await run(['codehost-member-add', 'project', 'ops/infra/deploy', 'dave', 'reporter'], env))
        .status,
    ).toBe(0);

    const database = openDatabase<CodehostTables>(
      loadProgramConfig(env).services.codehost.database,
    );
    try {
      const members = await database.db
        .selectFrom('members')
        .innerJoin('users', 'users.id', 'members.user_id')
        .select(['users.username', 'members.source_type', 'members.access_level'])
        .orderBy('members.id')
        .execute();
      expect(members).toEqual([
        { username: 'carol', source_type: 'group', access_level: 50 },
        { username: 'carol', source_type: 'group', access_level: 50 },
        { username: 'dave', source_type: 'project', access_level: 40 },
        { username: 'dave', source_type: 'group', access_level: 30 },
        { username: 'dave', source_type: 'project', access_level: 20 },
      ]);
    } finally {
      await database.close();
    }
  });
});

describe('refdata search commands', () => {
  it('marks search down and up, and rebuilds the index', async () => {
    const env = { DATA_DIR: temporaryDataDir() };
    expect((await run(['refdata-search-down'], env)).stdout).toBe('Search is down.\n');
    const database = openDatabase<RefdataTables>(loadProgramConfig(env).services.refdata.database);
    try {
      const state = await database.db
        .selectFrom('search_state')
        .select('state')
        .executeTakeFirstOrThrow();
      expect(state.state).toBe('down');
    } finally {
      await database.close();
    }
    expect((await run(['refdata-search-up'], env)).stdout).toBe('Search is available.\n');
    const asked = Date.now();
    expect((await run(['refdata-search-rebuild'], env)).stdout).toBe(
      'Asked every running instance to rebuild its search index; each does so within a second.\n',
    );
    const reopened = openDatabase<RefdataTables>(loadProgramConfig(env).services.refdata.database);
    try {
      const state = await reopened.db
        .selectFrom('search_state')
        .select(['state', 'rebuild_requested_at'])
        .executeTakeFirstOrThrow();
      expect(state.state).toBe('available');
      expect(Number(state.rebuild_requested_at)).toBeGreaterThanOrEqual(asked);
    } finally {
      await reopened.close();
    }
    expect((await run(['refdata-search-rebuild', 'now'], env)).status).toBe(2);
  });
});

describe('codehost OpenID Connect key commands', () => {
  it('lists, rotates and removes signing keys, refusing what would break signing', async () => {
    const env = { DATA_DIR: temporaryDataDir() };
    const first = await run(['codehost-oidc-keys'], env);
    expect(first.status, first.stderr).toBe(0);
    const [initial] = first.stdout.trim().split('\n');
    expect(initial).toMatch(/^[0-9a-f-]{36} {2}RS256 {2}generation 1 {2}signing$/);
    const oldKid = (initial ?? '').split(' ')[0] as string;

    const later = await run(['codehost-oidc-key-rotate', '--alg=ES256'], env);
    expect(later.status, later.stderr).toBe(0);
    expect(later.stdout).toMatch(/\(ES256\) is published now and signs from /);
    const listed = (await run(['codehost-oidc-keys'], env)).stdout;
    expect(listed).toMatch(/ES256 {2}generation 2 {2}published, signs from /);
    expect(listed).toContain(`${oldKid}  RS256  generation 1  signing`);

    const now = await run(['codehost-oidc-key-rotate', '--publish-for=0'], env);
    expect(now.status).toBe(0);
    const current = (await run(['codehost-oidc-keys'], env)).stdout;
    expect(current).toMatch(/RS256 {2}generation 3 {2}signing/);
    expect(current).toContain(`${oldKid}  RS256  generation 1  retired, still published`);

    const signingKid = (current.split('\n')[0] ?? '').split(' ')[0] as string;
    const refused = await run(['codehost-oidc-key-remove', signingKid], env);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/is the one that signs/);
    expect((await run(['codehost-oidc-key-remove', oldKid], env)).status).toBe(0);
    expect((await run(['codehost-oidc-keys'], env)).stdout).not.toContain(oldKid);

    for (const args of [
      ['codehost-oidc-key-rotate', '--alg=HS256'],
      ['codehost-oidc-key-rotate', '--publish-for=-1'],
      ['codehost-oidc-key-rotate', '--publish-for=soon'],
      ['codehost-oidc-key-rotate', '--bogus=1'],
      ['codehost-oidc-key-remove'],
      ['codehost-oidc-keys', 'extra'],
    ]) {
      expect((await run(args, env)).status, args.join(' ')).toBe(2);
    }
  });
});

describe('build before a command', () => {
  const script = new URL('../scripts/build.mjs', import.meta.url).pathname;

  /** A project of one file, compiled by the script as `npm start` and `npm run cli` run it. */
  function tinyProject(): string {
    const directory = mkdtempSync(join(tmpdir(), 'chrd-build-'));
    mkdirSync(join(directory, 'src'));
    writeFileSync(join(directory, 'src', 'main.ts'), 'export const answer: number = 42;\n');
    writeFileSync(
      join(directory, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true } }),
    );
    writeFileSync(
      join(directory, 'tsconfig.build.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { outDir: 'dist', rootDir: 'src' },
        include: ['src'],
      }),
    );
    return directory;
  }

  const build = (directory: string) =>
    new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [script, '--if-changed'], {
        cwd: directory,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('close', (status) => resolve({ status, stderr }));
    });

  it('compiles only when a source changed since the last build', async () => {
    const directory = tinyProject();
    const first = await build(directory);
    expect(first).toEqual({ status: 0, stderr: expect.stringContaining('Compiling src/') });
    expect(readFileSync(join(directory, 'dist', 'main.js'), 'utf8')).toContain('42');

    expect(await build(directory)).toEqual({ status: 0, stderr: '' });

    writeFileSync(join(directory, 'src', 'main.ts'), 'export const answer: number = 43;\n');
    expect((await build(directory)).stderr).toContain('Compiling src/');
    expect(readFileSync(join(directory, 'dist', 'main.js'), 'utf8')).toContain('43');

    // A failed compile leaves no fingerprint behind: the next run tries again.
    writeFileSync(join(directory, 'src', 'main.ts'), 'export const answer: number = "no";\n');
    expect((await build(directory)).status).not.toBe(0);
    expect((await build(directory)).stderr).toContain('Compiling src/');
  });
});

describe('the Reviewer-role recipe in docs/web.md', () => {
  it('gives the roles it says, through the groups claim codehost releases', async () => {
    const docs = readFileSync(new URL('../docs/web.md', import.meta.url), 'utf8');
    const block = /<!-- reviewer-role-recipe -->\s*```sh\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(block, 'the recipe block in docs/web.md').toBeDefined();
    const env = {
      DATA_DIR: temporaryDataDir(),
      PASSWORD_HASH_MEMORY_KIB: '64',
      PASSWORD_HASH_ITERATIONS: '1',
    };
    for (const name of ['root', 'bob', 'carol', 'dave']) {
      const made = await run(['codehost-user-create', name, `${name}@example.com`], env);
      expect(made.status, made.stderr).toBe(0);
    }
    for (const line of (block ?? '').split('\n').map((text) => text.trim())) {
      if (line === '') continue;
      const argv = line.replace(/^npm run cli -- /, '').split(/\s+/);
      const result = await run(argv, env);
      expect(result.status, `${line}: ${result.stderr}`).toBe(0);
    }
    // Someone added to refdata itself, against the advice: both roles.
    expect(
      (await run(['codehost-member-add', 'group', 'refdata', 'dave', 'guest'], env)).status,
    ).toBe(0);
    const config = loadProgramConfig(env);
    const database = openDatabase<CodehostTables>(config.services.codehost.database);
    try {
      const codehost = createCodehost(database.db, config.services.codehost, config);
      const gitlab = { rolesClaim: 'groups', roleMap: roleMap(DEFAULT_ROLE_MAP) };
      const rolesOf = async (username: string) => {
        const user = await codehost.users.findByUsername(username);
        if (!user) throw new Error(`no ${username}`);
        return rolesFromClaims({ groups: (await userFacts(codehost, user)).groups }, gitlab);
      };
      expect(await rolesOf('bob')).toEqual(['Reader', 'Reviewer']);
      expect(await rolesOf('carol')).toEqual(['Reader', 'Creator']);
      expect(await rolesOf('dave')).toEqual(['Reader', 'Creator', 'Reviewer']);
      // The owner named in --owner is a member of what it owns: both roles too.
      expect(await rolesOf('root')).toEqual(['Reader', 'Creator', 'Reviewer']);
    } finally {
      await database.close();
    }
  });
});
