import { describe, expect, it } from 'vitest';
import { ConstraintViolationError, mapDatabaseError } from '../../src/platform/db/errors.js';
import { problemFromError } from '../../src/platform/http/errors.js';

const violation = (kind: ConstraintViolationError['kind']) =>
  new ConstraintViolationError(kind, ['name'], 'widgets', { cause: new Error('driver') });

describe('problemFromError', () => {
  it('answers a constraint failure no route translated: 409 for unique and foreign keys', () => {
    expect(problemFromError(violation('unique'))).toMatchObject({ status: 409, code: 'conflict' });
    expect(problemFromError(violation('foreign_key'))).toMatchObject({ status: 409 });
  });

  it('treats not-null and check failures as our own fault (500), saying nothing of the schema', () => {
    for (const kind of ['not_null', 'check'] as const) {
      const value = problemFromError(violation(kind));
      expect(value).toMatchObject({ status: 500, code: 'internal' });
      expect(JSON.stringify(value)).not.toMatch(/widgets|name/);
    }
  });

  it('passes client errors raised by plugins through, and hides everything else', () => {
    const clientError = Object.assign(new Error('Bad content length'), { statusCode: 400 });
    expect(problemFromError(clientError)).toMatchObject({
      status: 400,
      detail: 'Bad content length',
    });
    const internal = problemFromError(new TypeError('cannot read x of undefined'));
    expect(internal.status).toBe(500);
    expect(internal.detail).not.toContain('undefined');
  });
});

describe('mapDatabaseError', () => {
  it('reads the columns of SQLite and PostgreSQL reports', () => {
    const sqlite = mapDatabaseError(
      Object.assign(new Error('UNIQUE constraint failed: users.tenant, users.username'), {
        code: 'SQLITE_CONSTRAINT_UNIQUE',
      }),
    );
    expect(sqlite).toMatchObject({
      kind: 'unique',
      columns: ['tenant', 'username'],
      target: 'users',
    });
    const postgres = mapDatabaseError(
      Object.assign(new Error('duplicate key'), {
        code: '23505',
        constraint: 'users_username_key',
        detail: 'Key (tenant, username)=(1, bob) already exists.',
      }),
    );
    expect(postgres).toMatchObject({
      kind: 'unique',
      columns: ['tenant', 'username'],
      target: 'users_username_key',
    });
    // The values in PostgreSQL's detail are not carried into the message.
    expect((postgres as Error).message).not.toContain('bob');
  });

  it('returns anything else unchanged', () => {
    const other = Object.assign(new Error('syntax error'), { code: '42601' });
    expect(mapDatabaseError(other)).toBe(other);
    expect(mapDatabaseError('text')).toBe('text');
  });
});
