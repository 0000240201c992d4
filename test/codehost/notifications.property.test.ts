/**
 * Property: any PUT to a notification settings endpoint either applies exactly
 * the parameters it sent (and nothing else), or is refused with a 400 and leaves
 * every stored value as it was. Parameter sets, value encodings and transports
 * are generated; the stored state is read from the database, hidden events included.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/codehost/accounts/passwords.js';
import { UserStore } from '../../src/codehost/accounts/users.js';
import {
  NOTIFICATION_EVENTS,
  NOTIFICATION_LEVELS,
  type NotificationEvent,
  type NotificationLevel,
} from '../../src/codehost/notifications/settings.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  apiToken,
  type Codehost,
  createGroup,
  createProject,
  createUser,
  startCodehost,
} from './helpers.js';

type Scope = 'global' | 'group' | 'project';
type Value = string | boolean;

const TRUE_VALUES: Value[] = [true, 'true', '1', 'yes', 'on', 't', 'TRUE', 'Y'];
const FALSE_VALUES: Value[] = [false, 'false', '0', 'no', 'off', 'f', 'False', 'N'];
const BAD_BOOLEANS: Value[] = ['maybe', '2', '', 'truthy', '-1', 'null'];
const BAD_LEVELS = ['', 'bogus', 'Watch', 'custom ', '3', 'GLOBAL'];

interface State {
  level: NotificationLevel;
  events: Record<NotificationEvent, boolean>;
  notificationEmail: string | null;
}

function expectedBoolean(value: Value): boolean | undefined {
  if (TRUE_VALUES.includes(value)) return true;
  if (FALSE_VALUES.includes(value)) return false;
  return undefined;
}

describe.each(DATABASE_KINDS)('notification settings PUT property on %s', (kind) => {
  let service: Codehost;
  let token: string;
  let userId: number;
  let primary: string;
  let secondary: string;
  let groupId: number;
  let projectId: number;

  beforeAll(async () => {
    service = await startCodehost(kind);
    const user = await createUser(service);
    userId = user.id;
    primary = user.email;
    secondary = `Other.${user.id}@Example.org`;
    await new UserStore(
      service.db,
      new PasswordHasher(service.config.security.passwordHash),
    ).addEmail(user.id, secondary);
    token = await apiToken(service, user.id);
    const group = await createGroup(service, user.id);
    groupId = group.id;
    projectId = (await createProject(service, user.id, group)).id;
  });
  afterAll(async () => service?.close());

  const urlOf = (scope: Scope) =>
    scope === 'global'
      ? '/api/v4/notification_settings'
      : scope === 'group'
        ? `/api/v3/groups/${groupId}/notification_settings`
        : `/api/v4/projects/${projectId}/notification_settings`;

  async function stored(scope: Scope): Promise<State> {
    const key =
      scope === 'global'
        ? { type: 'global' as const, id: 0 }
        : { type: scope, id: scope === 'group' ? groupId : projectId };
    const row = await service.db
      .selectFrom('notification_settings')
      .selectAll()
      .where('user_id', '=', userId)
      .where('source_type', '=', key.type)
      .where('source_id', '=', key.id)
      .executeTakeFirst();
    const user = await service.db
      .selectFrom('users')
      .select('notification_email')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const events = Object.fromEntries(
      NOTIFICATION_EVENTS.map((event) => [event, row ? row[event] === 1 : false]),
    ) as Record<NotificationEvent, boolean>;
    const defaultLevel: NotificationLevel = scope === 'global' ? 'participating' : 'global';
    return {
      level: row ? (NOTIFICATION_LEVELS[row.level] as NotificationLevel) : defaultLevel,
      events,
      notificationEmail: user.notification_email,
    };
  }

  const eventValue = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...TRUE_VALUES, ...FALSE_VALUES) },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_BOOLEANS) },
  );
  const request = fc.record({
    scope: fc.constantFrom<Scope>('global', 'group', 'project'),
    transport: fc.constantFrom('query', 'form', 'json'),
    level: fc.option(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom<string>(...NOTIFICATION_LEVELS) },
        { weight: 1, arbitrary: fc.constantFrom(...BAD_LEVELS) },
      ),
      { nil: undefined },
    ),
    events: fc.record(
      Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, eventValue])) as Record<
        NotificationEvent,
        fc.Arbitrary<Value>
      >,
      { requiredKeys: [] },
    ),
    email: fc.option(fc.constantFrom('primary', 'secondary', 'empty', 'stranger'), {
      nil: undefined,
    }),
  });

  it('applies exactly what was sent, or refuses with 400 and changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ scope, transport, level, events, email }) => {
        const parameters: Record<string, Value> = { ...events };
        if (level !== undefined) parameters.level = level;
        const emailSent = scope === 'global' ? email : undefined;
        if (emailSent !== undefined) {
          parameters.notification_email = {
            primary: primary.toUpperCase(),
            secondary: secondary.toLowerCase(),
            empty: '',
            stranger: 'stranger@example.com',
          }[emailSent];
        }
        // Outside JSON every value travels as text.
        const wire =
          transport === 'json'
            ? parameters
            : Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, String(v)]));

        const before = await stored(scope);
        const headers = { 'private-token': token };
        const url = urlOf(scope);
        const response =
          transport === 'query'
            ? await service.app.inject({
                method: 'PUT',
                url: `${url}?${new URLSearchParams(wire as Record<string, string>)}`,
                headers,
              })
            : transport === 'form'
              ? await service.app.inject({
                  method: 'PUT',
                  url,
                  headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
                  payload: new URLSearchParams(wire as Record<string, string>).toString(),
                })
              : await service.app.inject({ method: 'PUT', url, headers, payload: wire });
        const after = await stored(scope);

        const eventChanges = Object.entries(events).map(
          ([event, value]) => [event, expectedBoolean(value)] as const,
        );
        const valid =
          eventChanges.every(([, value]) => value !== undefined) &&
          (level === undefined || (NOTIFICATION_LEVELS as readonly string[]).includes(level)) &&
          emailSent !== 'stranger';

        if (!valid) {
          expect(response.statusCode).toBe(400);
          expect(response.json()).toHaveProperty('message');
          expect(after).toEqual(before);
          return;
        }
        const expected: State = {
          level: (level as NotificationLevel | undefined) ?? before.level,
          events: { ...before.events, ...Object.fromEntries(eventChanges) },
          notificationEmail:
            emailSent === undefined
              ? before.notificationEmail
              : emailSent === 'secondary'
                ? secondary
                : null,
        };
        expect(response.statusCode).toBe(200);
        expect(after).toEqual(expected);
        const shape: Record<string, unknown> = { level: expected.level };
        if (scope === 'global') shape.notification_email = expected.notificationEmail ?? primary;
        if (expected.level === 'custom') shape.events = expected.events;
        expect(response.json()).toEqual(shape);
      }),
      { numRuns: 150 },
    );
  });
});
