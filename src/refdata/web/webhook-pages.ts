import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_OUTBOUND_URL_LENGTH } from '../../platform/http/outbound.js';
import { HttpError } from '../../platform/http/problem.js';
import { partValue } from '../../platform/http/request-parts.js';
import type { HttpApp } from '../../platform/http/server.js';
import { copyable } from '../../platform/web/copy.js';
import { errorSummary, type FieldErrors, fieldError, textField } from '../../platform/web/forms.js';
import { html, type Markup, timeTag } from '../../platform/web/html.js';
import { csrfField, type Notice } from '../../platform/web/layout.js';
import { keepToShowOnce, takeShownOnce } from '../../platform/web/shown-once.js';
import { READ_ROLES } from '../auth/roles.js';
import { CHANGE_EVENTS, type ChangeEvent } from '../db/tables.js';
import { problem } from '../problem-codes.js';
import {
  checkSubscription,
  type SubscriptionInput,
  type WebhookRow,
} from '../webhooks/subscriptions.js';
import { pageHref } from './links.js';
import type { Pages } from './pages.js';
import type { Viewer } from './session.js';

/** Who may see these pages (the API's rule for the same resources). */
const SUBSCRIBERS = { roles: READ_ROLES, doing: 'Webhooks' } as const;

const BASE = '/account/webhooks';
const ID_PARAMS = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }) });
const DELIVERY_PARAMS = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }),
  deliveryId: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }),
});
/** Deliveries shown on a subscription's page. */
const LOGGED = 20;

const EVENT_WORDS: Record<ChangeEvent, string> = {
  created: 'Created',
  updated: 'Updated',
  submitted: 'Submitted for review',
  approved: 'Approved',
  rejected: 'Rejected',
  'changes-requested': 'Sent back with changes requested',
  deprecated: 'Deprecated',
  removed: 'Removed (a picklist value)',
};

const STATE_WORDS = { active: 'Active', paused: 'Paused', disabled: 'Disabled' } as const;

/** Every value a form field was sent with (checkboxes repeat their name). */
function valuesOf(body: unknown, name: string): string[] {
  if (body === null || typeof body !== 'object') return [];
  const value = (body as Record<string, unknown>)[name];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((item): item is string => typeof item === 'string');
}

function textOf(body: unknown, name: string): string {
  return valuesOf(body, name)[0]?.trim() ?? '';
}

/** The settings a form sent, as the API takes them. */
function inputFrom(body: unknown): SubscriptionInput {
  return {
    url: textOf(body, 'url'),
    description: textOf(body, 'description'),
    events: valuesOf(body, 'events') as ChangeEvent[],
    libraries: valuesOf(body, 'libraries'),
    families: valuesOf(body, 'families'),
  };
}

function inputOf(row: WebhookRow): SubscriptionInput {
  return {
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as ChangeEvent[],
    libraries: JSON.parse(row.libraries) as string[],
    families: JSON.parse(row.families) as string[],
  };
}

/** The API's field errors as the form's, by field name (a list's item as the list). */
function formErrors(errors: { field: string; detail: string }[]): FieldErrors {
  const byField: FieldErrors = {};
  for (const error of errors) {
    const field = error.field.split('/')[1] ?? 'url';
    const sentence =
      field === 'url'
        ? `This URL ${error.detail}.`
        : `${error.detail.charAt(0).toUpperCase()}${error.detail.slice(1)}.`;
    byField[field] ??= sentence;
  }
  return byField;
}

/**
 * The webhook pages under /account/webhooks: a person's subscriptions, a form
 * to make one (its secret shown once, with a Copy button), each one's settings,
 * pause and resume, a new secret, deletion, and its delivery log with "Send
 * again". The same rules as the API (webhooks/subscriptions.ts).
 */
export function registerWebhookPages(app: HttpApp, pages: Pages): void {
  const refdata = pages.refdata;
  const { webhooks } = refdata;
  const context = { db: refdata.db, families: refdata.families, policy: webhooks.policy };

  const owned = async (viewer: Viewer, id: number): Promise<WebhookRow> => {
    const row = await webhooks.subscriptions.find(viewer.subject, id);
    if (!row)
      throw new HttpError(problem(404, 'not-found', 'You have no webhook at this address.'));
    return row;
  };

  /** The settings form, for a new subscription or an existing one. */
  const settingsForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    action: string,
    input: SubscriptionInput,
    errors: FieldErrors,
    submit: string,
  ): Promise<Markup> => {
    const session = await pages.ensureSession(request, reply);
    const libraries = await refdata.store.libraries();
    const box = (name: string, value: string, label: string, checked: boolean, index: number) =>
      html`<div><input type="checkbox" id="${name}-${String(index)}" name="${name}" value="${value}"${checked ? html` checked` : html``}> <label class="inline" for="${name}-${String(index)}">${label}</label></div>`;
    const group = (name: string, legend: string, hint: string, boxes: Markup[]) =>
      html`<fieldset class="group" aria-describedby="${name}-hint${errors[name] ? html` ${name}-error` : html``}"><legend>${legend}</legend><p class="hint" id="${name}-hint">${hint}</p>${boxes}${fieldError(errors[name] ? `${name}-error` : undefined, errors[name])}</fieldset>`;
    return html`<form method="post" action="${action}" class="authoring">${csrfField(session.data.csrf)}
${textField({ name: 'url', label: 'Payload URL', value: input.url, error: errors.url, type: 'url', maxLength: MAX_OUTBOUND_URL_LENGTH, required: true, hint: 'Each event is POSTed here as JSON, signed per Standard Webhooks. An http(s) address on the public internet.' })}
${textField({ name: 'description', label: 'Description (optional)', value: input.description, error: errors.description, maxLength: 255 })}
${group(
  'events',
  'Events',
  'None ticked: every event.',
  CHANGE_EVENTS.map((event, index) =>
    box('events', event, EVENT_WORDS[event], input.events.includes(event), index),
  ),
)}
${group(
  'libraries',
  'Libraries',
  'None ticked: every library.',
  libraries.map((library, index) =>
    box('libraries', library.iri, library.name, input.libraries.includes(library.iri), index),
  ),
)}
${group(
  'families',
  'Kinds of resource',
  'None ticked: every kind.',
  refdata.families.all.map((family, index) =>
    box('families', family.key, family.label, input.families.includes(family.key), index),
  ),
)}
<p class="actions"><button type="submit" class="primary">${submit}</button> <a href="${BASE}">Cancel</a></p>
</form>`;
  };

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    viewer: Viewer,
    notice?: Notice,
  ) => {
    const rows = await webhooks.subscriptions.list(viewer.subject);
    const now = Date.now();
    const disabled = rows.filter((row) => row.state === 'disabled');
    return pages.answer(
      request,
      reply,
      200,
      {
        title: 'Webhooks',
        wide: true,
        notice:
          notice ??
          (disabled.length > 0
            ? {
                kind: 'error',
                text: `${disabled.length === 1 ? 'One webhook was' : `${disabled.length} webhooks were`} disabled after its deliveries failed for about a day. Open it to see why, and resume it once the receiver works.`,
              }
            : undefined),
      },
      html`<p>A webhook sends each change to resources you choose to a URL of yours, as it happens. To read changes at your own pace, follow the <a href="/changes">change feed</a> instead.</p>
<p><a class="button" href="${BASE}/new">New webhook</a></p>
${
  rows.length === 0
    ? html`<p>You have no webhooks yet.</p>`
    : html`<div class="table-scroll"><table><caption class="visually-hidden">Your webhooks</caption><thead><tr><th scope="col">URL</th><th scope="col">State</th><th scope="col">Events</th><th scope="col">Changed</th></tr></thead><tbody>${rows.map(
        (row) =>
          html`<tr><td><a href="${BASE}/${String(row.id)}">${row.url}</a>${row.description ? html`<br><span class="hint">${row.description}</span>` : html``}</td><td>${STATE_WORDS[row.state]}</td><td>${(JSON.parse(row.events) as ChangeEvent[]).map((event) => EVENT_WORDS[event]).join(', ') || 'All'}</td><td>${timeTag(Number(row.updated_at), now)}</td></tr>`,
      )}</tbody></table></div>`
}`,
    );
  };

  const newPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    input: SubscriptionInput,
    errors: FieldErrors,
    status: number,
  ) =>
    pages.answer(
      request,
      reply,
      status,
      { title: 'New webhook', notice: noticeOf(errors) },
      await settingsForm(request, reply, `${BASE}/new`, input, errors, 'Make webhook'),
    );

  const webhookPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    row: WebhookRow,
    options: {
      input?: SubscriptionInput;
      errors?: FieldErrors;
      notice?: Notice;
      status?: number;
      secret?: string;
    } = {},
  ) => {
    const session = await pages.ensureSession(request, reply);
    const token = csrfField(session.data.csrf);
    const { deliveries } = await webhooks.subscriptions.deliveries(row.id, 1, LOGGED);
    const now = Date.now();
    const errors = options.errors ?? {};
    const notice: Notice | undefined =
      options.notice ??
      noticeOf(errors) ??
      (row.state === 'disabled'
        ? {
            kind: 'error',
            text: `Deliveries stopped: ${row.disabled_reason ?? 'they failed for about a day'} Resume it once the receiver works.`,
          }
        : undefined);
    const action = (path: string, label: string, className = '') =>
      html`<form method="post" action="${BASE}/${String(row.id)}/${path}" class="inline">${token}<button type="submit"${className ? html` class="${className}"` : html``}>${label}</button></form>`;
    return pages.answer(
      request,
      reply,
      options.status ?? 200,
      { title: `Webhook to ${new URL(row.url).host}`, wide: true, notice },
      html`${
        options.secret
          ? html`<section class="secret-once" aria-labelledby="secret-heading"><h2 id="secret-heading">Signing secret</h2><p>Copy it now: it is not shown again. Receivers verify each delivery with it (see <a href="/docs">the API description</a> and the Standard Webhooks libraries).</p><p>${copyable('signing-secret', options.secret, { label: 'Copy secret' })}</p></section>`
          : html``
      }<p>State: <strong>${STATE_WORDS[row.state]}</strong>. ${
        row.state === 'active'
          ? action('pause', 'Pause')
          : action('resume', row.state === 'disabled' ? 'Resume deliveries' : 'Resume', 'primary')
      } ${action('secret', 'New signing secret')}</p>
<h2>Settings</h2>
${await settingsForm(request, reply, `${BASE}/${String(row.id)}`, options.input ?? inputOf(row), errors, 'Save settings')}
<h2 id="deliveries">Recent deliveries</h2>
${
  deliveries.length === 0
    ? html`<p>Nothing has been sent yet.</p>`
    : html`<ol class="deliveries">${deliveries.map((delivery) => {
        const payload = JSON.parse(delivery.payload) as { type: string; data: { iri: string } };
        const last = delivery.log.at(-1);
        return html`<li><p><strong>${payload.type}</strong> of <a href="${pageHref(refdata, payload.data.iri) ?? payload.data.iri}">${payload.data.iri}</a></p>
<p>${deliveryState(delivery.state)}, ${String(delivery.attempts)} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}${last ? html`; last ${timeTag(Number(last.attempted_at), now)}: ${last.status_code === null ? 'no answer' : `answered ${last.status_code}`}${last.error && last.status_code === null ? html` (${last.error})` : html``} in ${String(last.duration_ms)} ms` : html``}${delivery.state === 'pending' && delivery.attempts > 0 ? html`; next attempt ${timeTag(Number(delivery.next_attempt_at), now)}` : html``}</p>
<details><summary>Request and answers</summary><h3>Body sent</h3><pre>${JSON.stringify(JSON.parse(delivery.payload), null, 2)}</pre>${delivery.log.map(
          (attempt) =>
            html`<h3>Attempt ${timeTag(Number(attempt.attempted_at), now)}</h3><p>${attempt.status_code === null ? 'No answer' : `Answered ${attempt.status_code}`} in ${String(attempt.duration_ms)} ms${attempt.error ? html`: ${attempt.error}` : html``}</p><pre>${Object.entries(JSON.parse(attempt.request_headers) as Record<string, string>).map(([name, value]) => `${name}: ${value}\n`)}</pre>${attempt.response_excerpt ? html`<pre>${attempt.response_excerpt}</pre>` : html``}`,
        )}</details>
${delivery.state === 'sending' ? html`` : html`<form method="post" action="${BASE}/${String(row.id)}/deliveries/${String(delivery.id)}/redeliver">${token}<button type="submit">Send again</button></form>`}</li>`;
      })}</ol>`
}
<h2>Delete</h2>
<form method="post" action="${BASE}/${String(row.id)}/delete">${token}<p>Deleting stops deliveries at once and drops the delivery log.</p><button type="submit" class="danger">Delete webhook</button></form>`,
    );
  };

  /**
   * Post/Redirect/Get: the new secret is sealed into the session for the page
   * redirected to, which shows it once; reloading that page makes nothing again.
   */
  const showSecretOnce = async (
    request: FastifyRequest,
    reply: FastifyReply,
    row: WebhookRow,
    salt: string,
    done: 'made' | 'secret',
  ) => {
    const session = await pages.ensureSession(request, reply);
    await keepToShowOnce(pages.sessions, session, {
      purpose: secretPurpose(row),
      value: webhooks.secrets.secretFor(salt),
    });
    return reply.redirect(`${BASE}/${String(row.id)}?done=${done}`, 303);
  };

  app.get(BASE, { config: { viewers: SUBSCRIBERS } }, async (request, reply) => {
    const viewer = pages.signedInViewer(request);
    const done = partValue(request.query, 'done') === 'deleted';
    return listPage(
      request,
      reply,
      viewer,
      done ? { kind: 'ok', text: 'The webhook was deleted.' } : undefined,
    );
  });

  app.get(`${BASE}/new`, { config: { viewers: SUBSCRIBERS } }, async (request, reply) => {
    return newPage(
      request,
      reply,
      { url: '', description: '', events: [], libraries: [], families: [] },
      {},
      200,
    );
  });

  app.post(`${BASE}/new`, { config: { viewers: SUBSCRIBERS } }, async (request, reply) => {
    const viewer = pages.signedInViewer(request);
    const input = inputFrom(request.body);
    const errors = formErrors(await checkSubscription(input, context));
    if (Object.keys(errors).length > 0) return newPage(request, reply, input, errors, 400);
    if ((await webhooks.subscriptions.count(viewer.subject)) >= webhooks.settings.maxPerOwner) {
      return newPage(
        request,
        reply,
        input,
        {
          url: `You have ${webhooks.settings.maxPerOwner} webhooks, as many as one person may have; delete one first.`,
        },
        409,
      );
    }
    const salt = webhooks.secrets.newSalt();
    const row = await webhooks.subscriptions.create(viewer.subject, input, salt);
    webhooks.nudge();
    return showSecretOnce(request, reply, row, salt, 'made');
  });

  app.get(
    `${BASE}/:id`,
    { config: { viewers: SUBSCRIBERS }, schema: { params: ID_PARAMS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const row = await owned(viewer, request.params.id);
      const done = partValue(request.query, 'done');
      const notices: Record<string, string> = {
        made: 'The webhook was made. Copy its signing secret now.',
        secret: 'A new signing secret signs every delivery from now on. Copy it now.',
        saved: 'The settings were saved.',
        paused: 'Paused: nothing is sent until you resume it.',
        resumed: 'Resumed: new events are sent again.',
        redeliver: 'The delivery is being sent again.',
      };
      const text = typeof done === 'string' ? notices[done] : undefined;
      const session = pages.sessionOf(request);
      const secret = session && (await takeShownOnce(pages.sessions, session, secretPurpose(row)));
      return webhookPage(request, reply, row, {
        ...(text ? { notice: { kind: 'ok', text } } : {}),
        ...(secret ? { secret } : {}),
      });
    },
  );

  app.post(
    `${BASE}/:id`,
    { config: { viewers: SUBSCRIBERS }, schema: { params: ID_PARAMS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const row = await owned(viewer, request.params.id);
      const input = inputFrom(request.body);
      const errors = formErrors(await checkSubscription(input, context, inputOf(row)));
      if (Object.keys(errors).length > 0)
        return webhookPage(request, reply, row, { input, errors, status: 400 });
      await webhooks.subscriptions.update(row, input, undefined);
      return reply.redirect(`${BASE}/${String(row.id)}?done=saved`, 303);
    },
  );

  for (const [path, state, done] of [
    ['pause', 'paused', 'paused'],
    ['resume', 'active', 'resumed'],
  ] as const) {
    app.post(
      `${BASE}/:id/${path}`,
      { config: { viewers: SUBSCRIBERS }, schema: { params: ID_PARAMS } },
      async (request, reply) => {
        const viewer = pages.signedInViewer(request);
        const row = await owned(viewer, request.params.id);
        await webhooks.subscriptions.update(row, inputOf(row), state);
        if (state === 'active') webhooks.nudge();
        return reply.redirect(`${BASE}/${String(row.id)}?done=${done}`, 303);
      },
    );
  }

  app.post(
    `${BASE}/:id/secret`,
    { config: { viewers: SUBSCRIBERS }, schema: { params: ID_PARAMS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const row = await owned(viewer, request.params.id);
      const salt = webhooks.secrets.newSalt();
      await webhooks.subscriptions.rotateSecret(row, salt);
      return showSecretOnce(request, reply, row, salt, 'secret');
    },
  );

  app.post(
    `${BASE}/:id/delete`,
    { config: { viewers: SUBSCRIBERS }, schema: { params: ID_PARAMS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      await webhooks.subscriptions.remove(await owned(viewer, request.params.id));
      return reply.redirect(`${BASE}?done=deleted`, 303);
    },
  );

  app.post(
    `${BASE}/:id/deliveries/:deliveryId/redeliver`,
    { config: { viewers: SUBSCRIBERS }, schema: { params: DELIVERY_PARAMS } },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const row = await owned(viewer, request.params.id);
      const result = await webhooks.subscriptions.redeliver(row.id, request.params.deliveryId);
      if (result === 'missing')
        throw new HttpError(problem(404, 'not-found', 'This webhook has no such delivery.'));
      if (result === 'queued') webhooks.nudge();
      return reply.redirect(`${BASE}/${String(row.id)}?done=redeliver#deliveries`, 303);
    },
  );
}

/** What a sealed secret is for: this subscription's signing. */
function secretPurpose(row: WebhookRow): string {
  return `webhook ${row.id} signing secret`;
}

function noticeOf(errors: FieldErrors): Notice | undefined {
  const summary = errorSummary(errors);
  return summary ? { kind: 'error', text: summary } : undefined;
}

function deliveryState(state: string): string {
  return (
    { pending: 'Waiting', sending: 'Being sent', delivered: 'Delivered', failed: 'Failed' }[
      state
    ] ?? state
  );
}
