import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { MAX_OUTBOUND_URL_LENGTH } from '../../platform/http/outbound.js';
import { HttpError, validationProblem } from '../../platform/http/problem.js';
import type { HttpApp } from '../../platform/http/server.js';
import { principalOf } from '../auth/authenticate.js';
import { READ_ROLES } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import { CHANGE_EVENTS, type ChangeEvent } from '../db/tables.js';
import { noContent, problems } from '../described-responses.js';
import { problem } from '../problem-codes.js';
import {
  checkSubscription,
  MAX_LISTED,
  type SubscriptionInput,
  subscriptionJson,
  type WebhookRow,
} from './subscriptions.js';

const EventName = Type.Union(
  CHANGE_EVENTS.map((event) => Type.Literal(event)),
  { description: 'An event of the change feed' },
);

const SETTINGS = {
  url: Type.String({
    minLength: 1,
    maxLength: MAX_OUTBOUND_URL_LENGTH,
    description: 'Where deliveries are POSTed: an http(s) URL to a public address',
  }),
  description: Type.String({ maxLength: 255, description: 'A note for the owner' }),
  events: Type.Array(EventName, {
    maxItems: CHANGE_EVENTS.length,
    description: 'The events wanted; empty or absent: all',
  }),
  libraries: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
    maxItems: MAX_LISTED,
    description: 'Only events of resources in these libraries (their IRIs); empty: all',
  }),
  families: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    maxItems: MAX_LISTED,
    description: 'Only events of these families (their keys); empty: all',
  }),
};

const NewSubscription = Type.Object(
  {
    url: SETTINGS.url,
    description: Type.Optional(SETTINGS.description),
    events: Type.Optional(SETTINGS.events),
    libraries: Type.Optional(SETTINGS.libraries),
    families: Type.Optional(SETTINGS.families),
  },
  { additionalProperties: false },
);

const SubscriptionChange = Type.Object(
  {
    url: Type.Optional(SETTINGS.url),
    description: Type.Optional(SETTINGS.description),
    events: Type.Optional(SETTINGS.events),
    libraries: Type.Optional(SETTINGS.libraries),
    families: Type.Optional(SETTINGS.families),
    state: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('paused')], {
        description: 'paused: nothing is sent; active: sending again (also after it was disabled)',
      }),
    ),
  },
  { additionalProperties: false },
);

const Subscription = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(Type.String()),
  libraries: Type.Array(Type.String()),
  families: Type.Array(Type.String()),
  state: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('disabled')]),
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why deliveries stopped, when they failed for about a day',
  }),
  disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  links: Type.Object({ self: Type.String(), deliveries: Type.String() }),
});

const WithSecret = Type.Intersect([
  Subscription,
  Type.Object({
    secret: Type.String({
      description: "The signing secret (Standard Webhooks' whsec_ form), shown this once",
    }),
  }),
]);

const Attempt = Type.Object({
  at: Type.String({ format: 'date-time' }),
  durationMs: Type.Integer(),
  status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's answer" }),
  error: Type.Union([Type.String(), Type.Null()]),
  requestHeaders: Type.Record(Type.String(), Type.String()),
  response: Type.String({ description: "The start of the receiver's answer" }),
});

const DeliveryLog = Type.Object({
  deliveries: Type.Array(
    Type.Object({
      id: Type.Integer(),
      eventId: Type.Integer(),
      state: Type.Union(
        ['pending', 'sending', 'delivered', 'failed'].map((state) => Type.Literal(state)),
      ),
      attempts: Type.Integer(),
      nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      createdAt: Type.String({ format: 'date-time' }),
      finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      payload: Type.Unknown({ description: 'The JSON body sent' }),
      log: Type.Array(Attempt),
    }),
  ),
  next: Type.Union([Type.String(), Type.Null()], { description: 'The next page, if there is one' }),
});

const ID = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }) });
const DELIVERY = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }),
  deliveryId: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }),
});
const PAGE = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** The settings asked for, over those a subscription has. */
function merged(
  body: Partial<Static<typeof SubscriptionChange>>,
  current?: WebhookRow,
): SubscriptionInput {
  const list = (value: string | undefined) =>
    value === undefined ? [] : (JSON.parse(value) as string[]);
  return {
    url: body.url ?? current?.url ?? '',
    description: body.description ?? current?.description ?? '',
    events: (body.events ?? list(current?.events)) as ChangeEvent[],
    libraries: body.libraries ?? list(current?.libraries),
    families: body.families ?? list(current?.families),
  };
}

/**
 * Webhook subscriptions (docs/changes.md): made, listed, changed, paused and
 * deleted by their owner, who alone sees them; each delivery's log, and a
 * delivery sent again. Anyone who may read the working view may subscribe.
 */
export function registerWebhookRoutes(app: HttpApp, refdata: Refdata): void {
  const { webhooks } = refdata;
  const context = { db: refdata.db, families: refdata.families, policy: webhooks.policy };
  const owned = async (request: FastifyRequest, id: number): Promise<WebhookRow> => {
    const row = await webhooks.subscriptions.find(principalOf(request).subject, id);
    if (!row) throw new HttpError(problem(404, 'not-found', `You have no webhook ${id}.`));
    return row;
  };
  const checked = async (input: SubscriptionInput, previous?: SubscriptionInput) => {
    const errors = await checkSubscription(input, context, previous);
    if (errors.length > 0) throw new HttpError(validationProblem(errors));
  };
  const tags = ['webhooks'];

  app.post('/webhooks', {
    schema: {
      summary: 'Subscribe a URL to change events',
      description:
        'Deliveries are signed per Standard Webhooks with the secret in the answer, which is shown only here.',
      tags,
      body: NewSubscription,
      response: {
        201: {
          description: 'Made; Location names it',
          headers: { location: { type: 'string' } },
          content: { 'application/json': { schema: WithSecret } },
        },
        ...problems(400, 401, 403, 409),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      const owner = principalOf(request).subject;
      const input = merged(request.body);
      await checked(input);
      if ((await webhooks.subscriptions.count(owner)) >= webhooks.settings.maxPerOwner) {
        throw new HttpError(
          problem(
            409,
            'webhook-limit',
            `You have ${webhooks.settings.maxPerOwner} webhooks, as many as one person may have.`,
          ),
        );
      }
      const salt = webhooks.secrets.newSalt();
      const row = await webhooks.subscriptions.create(owner, input, salt);
      webhooks.nudge();
      const json = subscriptionJson(row, refdata.publicUrl);
      return reply
        .status(201)
        .header('location', json.links.self)
        .send({ ...json, secret: webhooks.secrets.secretFor(salt) });
    },
  });

  app.get('/webhooks', {
    schema: {
      summary: 'Your webhook subscriptions',
      tags,
      response: { 200: Type.Array(Subscription), ...problems(401, 403) },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) =>
      (await webhooks.subscriptions.list(principalOf(request).subject)).map((row) =>
        subscriptionJson(row, refdata.publicUrl),
      ),
  });

  app.get('/webhooks/:id', {
    schema: {
      summary: 'One of your webhook subscriptions',
      tags,
      params: ID,
      response: { 200: Subscription, ...problems(400, 401, 403, 404) },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) =>
      subscriptionJson(await owned(request, request.params.id), refdata.publicUrl),
  });

  app.patch('/webhooks/:id', {
    schema: {
      summary: 'Change, pause or resume a webhook subscription',
      tags,
      params: ID,
      body: SubscriptionChange,
      response: { 200: Subscription, ...problems(400, 401, 403, 404) },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const row = await owned(request, request.params.id);
      const input = merged(request.body, row);
      await checked(input, merged({}, row));
      const saved = await webhooks.subscriptions.update(row, input, request.body.state);
      if (saved.state === 'active') webhooks.nudge();
      return subscriptionJson(saved, refdata.publicUrl);
    },
  });

  app.delete('/webhooks/:id', {
    schema: {
      summary: 'Delete a webhook subscription and its delivery log',
      tags,
      params: ID,
      response: { 204: noContent('Deleted'), ...problems(400, 401, 403, 404) },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      await webhooks.subscriptions.remove(await owned(request, request.params.id));
      return reply.status(204).send();
    },
  });

  app.post('/webhooks/:id/secret', {
    schema: {
      summary: 'Replace the signing secret',
      description: 'The new secret signs every delivery from now on; it is shown only here.',
      tags,
      params: ID,
      response: {
        200: Type.Object({ secret: Type.String() }),
        ...problems(400, 401, 403, 404),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const row = await owned(request, request.params.id);
      const salt = webhooks.secrets.newSalt();
      await webhooks.subscriptions.rotateSecret(row, salt);
      return { secret: webhooks.secrets.secretFor(salt) };
    },
  });

  app.get('/webhooks/:id/deliveries', {
    schema: {
      summary: "A subscription's deliveries, newest first, each with its attempts",
      tags,
      params: ID,
      querystring: PAGE,
      response: { 200: DeliveryLog, ...problems(400, 401, 403, 404) },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request) => {
      const row = await owned(request, request.params.id);
      const page = request.query.page ?? 1;
      const perPage = request.query.perPage ?? 20;
      const { deliveries, more } = await webhooks.subscriptions.deliveries(row.id, page, perPage);
      return {
        deliveries: deliveries.map((delivery) => ({
          id: delivery.id,
          eventId: delivery.event_id,
          state: delivery.state,
          attempts: delivery.attempts,
          nextAttemptAt: delivery.state === 'pending' ? iso(delivery.next_attempt_at) : null,
          createdAt: iso(delivery.created_at) ?? '',
          finishedAt: iso(delivery.finished_at),
          payload: JSON.parse(delivery.payload) as unknown,
          log: delivery.log.map((attempt) => ({
            at: iso(attempt.attempted_at) ?? '',
            durationMs: attempt.duration_ms,
            status: attempt.status_code,
            error: attempt.error,
            requestHeaders: JSON.parse(attempt.request_headers) as Record<string, string>,
            response: attempt.response_excerpt,
          })),
        })),
        next: more
          ? `${refdata.publicUrl}/webhooks/${row.id}/deliveries?page=${page + 1}&perPage=${perPage}`
          : null,
      };
    },
  });

  app.post('/webhooks/:id/deliveries/:deliveryId/redeliver', {
    schema: {
      summary: 'Send a delivery again',
      description:
        'It is sent at once (in order after earlier deliveries of the same resource), with a fresh retry schedule.',
      tags,
      params: DELIVERY,
      response: {
        202: noContent('Queued'),
        ...problems(400, 401, 403, 404, 409),
      },
    },
    config: { access: { roles: READ_ROLES } },
    handler: async (request, reply) => {
      const row = await owned(request, request.params.id);
      const result = await webhooks.subscriptions.redeliver(row.id, request.params.deliveryId);
      if (result === 'missing') {
        throw new HttpError(
          problem(
            404,
            'not-found',
            `Webhook ${row.id} has no delivery ${request.params.deliveryId}.`,
          ),
        );
      }
      if (result === 'sending') {
        throw new HttpError(problem(409, 'wrong-state', 'That delivery is being sent right now.'));
      }
      webhooks.nudge();
      return reply.status(202).send();
    },
  });
}
