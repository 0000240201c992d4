import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, describeDatabase } from '../../src/platform/config.js';
import { environmentWithEnvFile } from '../../src/platform/env-file.js';
import { loadProgramConfig } from '../../src/program.js';

describe('loadConfig', () => {
  it('gives every variable its documented default', () => {
    const config = loadProgramConfig({}, '/srv/app');
    expect(config.host).toBe('127.0.0.1');
    expect(config.logLevel).toBe('info');
    expect(config.logFormat).toBe('auto');
    expect(config.bodyLimitBytes).toBe(1_048_576);
    expect(config.requestTimeoutMs).toBe(30_000);
    expect(config.shutdownTimeoutMs).toBe(10_000);
    expect(config.trustProxy).toBe(false);
    expect(config.dataDir).toBe('/srv/app/data');
    expect(config.services.codehost).toEqual({
      port: 8080,
      publicUrl: 'http://localhost:8080',
      database: { kind: 'sqlite', file: '/srv/app/data/codehost.sqlite' },
    });
    expect(config.services.refdata).toEqual({
      port: 8081,
      publicUrl: 'http://localhost:8081',
      database: { kind: 'sqlite', file: '/srv/app/data/refdata.sqlite' },
    });
  });

  it('reads good values', () => {
    const config = loadProgramConfig(
      {
        HOST: '0.0.0.0',
        CODEHOST_PORT: '9000',
        REFDATA_PORT: '0',
        REFDATA_PUBLIC_URL: 'https://rdl.example.org/api/',
        LOG_LEVEL: 'WARN',
        HTTP_BODY_LIMIT: '2048',
        TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
        DATA_DIR: '/var/lib/app',
      },
      '/srv/app',
    );
    expect(config.host).toBe('0.0.0.0');
    expect(config.services.codehost.port).toBe(9000);
    expect(config.services.codehost.publicUrl).toBe('http://localhost:9000');
    expect(config.services.refdata.port).toBe(0);
    expect(config.services.refdata.publicUrl).toBe('https://rdl.example.org/api');
    expect(config.logLevel).toBe('warn');
    expect(config.bodyLimitBytes).toBe(2048);
    expect(config.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(config.services.refdata.database).toEqual({
      kind: 'sqlite',
      file: '/var/lib/app/refdata.sqlite',
    });
  });

  it('accepts a proxy hop count and the booleans for TRUST_PROXY', () => {
    expect(loadProgramConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadProgramConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadProgramConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
  });

  it('puts each service in its own schema of DATABASE_URL, unless the service has its own URL', () => {
    const config = loadProgramConfig({
      DATABASE_URL: 'postgres://app:pw@db:5432/main',
      REFDATA_DATABASE_URL: 'postgresql://rdl@db2/rdl',
      DATABASE_POOL_MAX: '3',
      DATABASE_PREPARED_STATEMENTS: 'false',
    });
    expect(config.services.codehost.database).toEqual({
      kind: 'postgres',
      url: 'postgres://app:pw@db:5432/main',
      schema: 'codehost',
      poolMax: 3,
      preparedStatements: false,
    });
    expect(config.services.refdata.database).toEqual({
      kind: 'postgres',
      url: 'postgresql://rdl@db2/rdl',
      schema: 'refdata',
      poolMax: 3,
      preparedStatements: false,
    });
    const prepared = loadProgramConfig({ DATABASE_URL: 'postgres://db/main' }).services.codehost;
    expect(prepared?.database).toMatchObject({ preparedStatements: true });
  });

  const badValues: [string, string, RegExp][] = [
    ['CODEHOST_PORT', 'abc', /whole number from 0 to 65535/],
    ['REFDATA_PORT', '70000', /whole number from 0 to 65535/],
    ['CODEHOST_PORT', '-1', /whole number/],
    ['CODEHOST_PORT', '80.5', /whole number/],
    ['LOG_LEVEL', 'loud', /one of fatal, error, warn, info, debug, trace, silent/],
    ['LOG_FORMAT', 'pretty', /one of auto, json, text/],
    ['HTTP_BODY_LIMIT', '10', /from 1024 to 104857600/],
    ['HTTP_REQUEST_TIMEOUT_MS', 'soon', /whole number/],
    ['SHUTDOWN_TIMEOUT_MS', '1e3', /whole number/],
    ['DATABASE_POOL_MAX', '0', /from 1 to 1000/],
    ['DATABASE_PREPARED_STATEMENTS', 'sometimes', /one of true, false/],
    ['CODEHOST_PUBLIC_URL', 'ftp://example.org', /http:\/\/ or https:\/\/ URL/],
    ['REFDATA_PUBLIC_URL', 'https://example.org/?x=1', /without query or fragment/],
    ['REFDATA_PUBLIC_URL', 'not a url', /http:\/\/ or https:\/\/ URL/],
    ['DATABASE_URL', 'mysql://localhost/db', /postgres:\/\/ or postgresql:\/\//],
    ['CODEHOST_DATABASE_URL', 'sqlite.db', /postgres:\/\//],
    ['TRUST_PROXY', 'yes please', /true, false, a hop count/],
  ];

  it.each(badValues)('stops on %s=%s with one line naming the variable', (name, value, accepts) => {
    let caught: unknown;
    try {
      loadProgramConfig({ [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as ConfigError).message;
    expect(message).toContain(`${name}=${JSON.stringify(value)}`);
    expect(message).toMatch(accepts);
    expect(message).not.toContain('\n');
  });

  it('never repeats a database password in its message', () => {
    expect(() => loadProgramConfig({ DATABASE_URL: 'mysql://app:hunter2@db/main' })).toThrow(
      /mysql:\/\/app:\*\*\*@db\/main/,
    );
    expect(() => loadProgramConfig({ DATABASE_URL: 'mysql://app:hunter2@db/main' })).not.toThrow(
      /hunter2/,
    );
  });

  it('treats empty values as unset', () => {
    expect(
      loadProgramConfig({ CODEHOST_PORT: '', DATABASE_URL: '  ' }).services.codehost,
    ).toMatchObject({
      port: 8080,
      database: { kind: 'sqlite' },
    });
  });
});

describe('describeDatabase', () => {
  it('shows SQLite files relative to the working directory and hides PostgreSQL passwords', () => {
    expect(describeDatabase({ kind: 'sqlite', file: '/srv/app/data/x.sqlite' }, '/srv/app')).toBe(
      'SQLite data/x.sqlite',
    );
    expect(
      describeDatabase({
        kind: 'postgres',
        url: 'postgres://app:secret@db:5432/main',
        schema: 'refdata',
        poolMax: 1,
        preparedStatements: true,
      }),
    ).toBe('PostgreSQL postgres://app:***@db:5432/main (schema refdata)');
  });
});

describe('environmentWithEnvFile', () => {
  it('fills variables from the file but lets the environment win', () => {
    const directory = mkdtempSync(join(tmpdir(), 'chrd-env-'));
    const file = join(directory, '.env');
    writeFileSync(file, 'CODEHOST_PORT=9001\nREFDATA_PORT=9002\n# a comment\nLOG_LEVEL="debug"\n');
    const env = environmentWithEnvFile({ REFDATA_PORT: '7000' }, file);
    expect(env).toMatchObject({ CODEHOST_PORT: '9001', REFDATA_PORT: '7000', LOG_LEVEL: 'debug' });
  });

  it('is the environment alone when there is no file', () => {
    expect(environmentWithEnvFile({ A: '1' }, '/nonexistent/.env')).toEqual({ A: '1' });
  });
});
