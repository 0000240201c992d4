import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  approve,
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';
import { SmtpReceiver } from './smtp-receiver.js';

/** People as a sign-in through the provider records them: name, verified address, roles. */
async function known(service: Refdata, subject: string, roles: string, email: string | null) {
  await service.db
    .insertInto('people')
    .values({
      subject,
      name: subject.toUpperCase(),
      username: subject,
      email,
      roles,
      updated_at: 1,
    })
    .onConflict((conflict) => conflict.column('subject').doUpdateSet({ email, roles }))
    .execute();
}

const as = (subject: string, roles: ('Reader' | 'Creator' | 'Reviewer')[]) => ({ subject, roles });

describe.each(DATABASE_KINDS)('notifications and discussion (%s)', (kind) => {
  let service: Refdata;
  let smtp: SmtpReceiver;
  beforeAll(async () => {
    smtp = await SmtpReceiver.start();
    service = await startRefdata(kind, {
      REFDATA_SMTP_URL: smtp.url,
      REFDATA_MAIL_FROM: 'refdata <refdata@rdl.example.org>',
    });
    await service.app.ready();
    const suffix = kind;
    await known(service, 'alice', 'Creator', `alice-${suffix}@example.org`);
    await known(service, 'rita', 'Reviewer', `rita-${suffix}@example.org`);
    await known(service, 'ravi', 'Reviewer', `ravi-${suffix}@example.org`);
    // A reviewer once, whose roles the provider took away: told nothing.
    await known(service, 'rex', '', `rex-${suffix}@example.org`);
  });
  afterAll(async () => {
    await service?.close();
    await smtp?.close();
  });

  /** Each person's roles: reading the inbox records the roles a token holds. */
  const ROLES_OF: Record<string, ('Reader' | 'Creator' | 'Reviewer')[]> = {
    alice: ['Creator'],
    rita: ['Reviewer'],
    ravi: ['Reviewer'],
  };
  const inbox = async (subject: string) =>
    (await service.call('GET', '/notifications', as(subject, ROLES_OF[subject] ?? []))).json();
  const mailsTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));

  it('tells reviewers of a submission and the author of each decision, in the inbox and by mail', async () => {
    const library = await createLibrary(service);
    await approve(service, library);
    const term = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Gate valve'),
      ontology: library,
      subClassOf: ['https://example.org/Valve'],
    });
    const before = { rita: (await inbox('rita')).unread, alice: (await inbox('alice')).unread };
    expect((await service.call('PUT', `/status/submit?${iriQuery(term.iri)}`)).statusCode).toBe(
      204,
    );
    const aboutTerm = (address: string) =>
      mailsTo(address).some((mail) => mail.subject.includes(term.name as string));
    await smtp.until(
      () => aboutTerm(`ravi-${kind}@example.org`) && aboutTerm(`rita-${kind}@example.org`),
    );
    const toRita = mailsTo(`rita-${kind}@example.org`).find((mail) =>
      mail.subject.includes(term.name as string),
    );
    expect(toRita?.subject).toBe(`[refdata] Submitted for review: ${term.name}`);
    expect(toRita?.parsed.from?.text).toContain('refdata@rdl.example.org');
    expect(toRita?.text).toMatch(/\/review\/packages\/\d+/);
    // Never the actor, never someone without a role.
    expect(
      mailsTo(`alice-${kind}@example.org`).some((mail) => mail.subject.includes('Submitted')),
    ).toBe(false);
    expect(mailsTo(`rex-${kind}@example.org`)).toEqual([]);
    expect(
      await service.db
        .selectFrom('notifications')
        .select('id')
        .where('recipient', '=', 'rex')
        .execute(),
    ).toEqual([]);
    const ritas = await inbox('rita');
    expect(ritas.unread).toBe(before.rita + 1);
    expect(ritas.items[0]).toMatchObject({
      event: 'submitted',
      actor: 'alice',
      iri: term.iri,
      read: false,
    });

    await service.call('PUT', `/status/request-changes?${iriQuery(term.iri)}`, {
      ...as('rita', ['Reviewer']),
      body: { comment: 'Name the <bonnet> type' },
    });
    await smtp.until(() =>
      mailsTo(`alice-${kind}@example.org`).some((mail) =>
        mail.subject.startsWith('[refdata] Changes requested'),
      ),
    );
    const request = mailsTo(`alice-${kind}@example.org`).find((mail) =>
      mail.subject.startsWith('[refdata] Changes requested'),
    );
    expect(request?.subject).toBe(`[refdata] Changes requested: ${term.name}`);
    expect(request?.text).toContain('Name the <bonnet> type');
    expect(request?.text).toContain(new URL(term.iri).pathname);
    expect((await inbox('alice')).unread).toBe(before.alice + 1);

    // She reads it; the count goes down, and only her own entries can be marked.
    const hers = await inbox('alice');
    const marked = await service.call('POST', '/notifications/read', {
      ...as('alice', ['Creator']),
      body: { ids: [hers.items[0].id] },
    });
    expect(marked.json()).toEqual({ marked: 1, unread: before.alice });
    const others = await service.call('POST', '/notifications/read', {
      ...as('ravi', ['Reviewer']),
      body: { ids: [hers.items[0].id] },
    });
    expect(others.json().marked).toBe(0);

    // No mail for decisions, she says; the inbox still has them.
    const settings = await service.call('PUT', '/notification-settings', {
      ...as('alice', ['Creator']),
      body: { decided: { inbox: true, email: false } },
    });
    expect(settings.statusCode).toBe(200);
    expect(settings.json()).toMatchObject({
      events: { decided: { inbox: true, email: false }, commented: { inbox: true, email: true } },
      email: `alice-${kind}@example.org`,
    });
    await service.call('PUT', `/status/submit?${iriQuery(term.iri)}`);
    const mailsBefore = mailsTo(`alice-${kind}@example.org`).length;
    await service.call('PUT', `/status/approve?${iriQuery(term.iri)}`, {
      ...as('ravi', ['Reviewer']),
      body: { justification: 'Clear now' },
    });
    await expect.poll(async () => (await inbox('alice')).items[0]?.event).toBe('decided');
    expect((await inbox('alice')).items[0].title).toBe(`Approved: ${term.name}`);
    // A while for a mail that should not come.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(`alice-${kind}@example.org`)).toHaveLength(mailsBefore);
  });

  it('keeps a discussion on a submission: anyone with a role writes, participants are told, the author edits briefly', async () => {
    const library = await createLibrary(service);
    const term = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Check valve'),
      ontology: library,
      subClassOf: ['https://example.org/Valve'],
    });
    const thread = `/comments?${iriQuery(term.iri)}`;
    const first = await service.call('POST', thread, {
      ...as('ravi', ['Reviewer']),
      body: { text: 'Is this the swing type? See https://example.org/swing' },
    });
    expect(first.statusCode).toBe(201);
    await smtp.until(() =>
      mailsTo(`alice-${kind}@example.org`).some((mail) => mail.subject.includes('Check valve')),
    );
    const reply = await service.call('POST', thread, {
      ...as('alice', ['Creator']),
      body: { text: 'Yes, swing.' },
    });
    expect(reply.statusCode).toBe(201);
    // Ravi spoke before, so he hears of the reply; Rita did not, so she does not.
    await smtp.until(() =>
      mailsTo(`ravi-${kind}@example.org`).some((mail) =>
        mail.subject.startsWith(`[refdata] New comment on ${term.name}`),
      ),
    );
    expect(
      mailsTo(`rita-${kind}@example.org`).some((mail) => mail.subject.includes('New comment on')),
    ).toBe(false);
    const listed = (await service.call('GET', thread, as('rob', ['Reader']))).json();
    expect(listed.map((comment: { author: string }) => comment.author)).toEqual(['ravi', 'alice']);

    const id = first.json().id;
    const edited = await service.call('PUT', `/comments/${id}`, {
      ...as('ravi', ['Reviewer']),
      body: { text: 'Is this the swing type?' },
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json().editedAt).not.toBeNull();
    const notHis = await service.call('PUT', `/comments/${id}`, {
      ...as('alice', ['Creator']),
      body: { text: 'Changed by someone else' },
    });
    expect(notHis.statusCode).toBe(403);
    await service.db
      .updateTable('comments')
      .set({ created_at: Date.now() - 16 * 60_000 })
      .where('id', '=', id)
      .execute();
    const late = await service.call('PUT', `/comments/${id}`, {
      ...as('ravi', ['Reviewer']),
      body: { text: 'Too late' },
    });
    expect(late.statusCode).toBe(403);
    expect(late.json().type).toMatch(/\/problems\/comment-locked$/);
    expect((await service.call('GET', thread)).json()[0].text).toBe('Is this the swing type?');
  });

  it('refuses bad comments and settings, changing nothing', async () => {
    const library = await createLibrary(service);
    const count = async () =>
      Number(
        (
          await service.db
            .selectFrom('comments')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const cases: [string, string, unknown, number][] = [
      ['POST', `/comments?${iriQuery(library)}`, { text: '' }, 400],
      ['POST', `/comments?${iriQuery(library)}`, { text: '   ' }, 400],
      ['POST', `/comments?${iriQuery(library)}`, { text: 'x'.repeat(5001) }, 400],
      ['POST', `/comments?${iriQuery(library)}`, { text: 7 }, 400],
      ['POST', `/comments?${iriQuery(library)}&package=1`, { text: 'both' }, 400],
      ['POST', '/comments', { text: 'neither' }, 400],
      ['POST', `/comments?${iriQuery(`${library}/none`)}`, { text: 'nowhere' }, 404],
      ['POST', '/comments?package=999999', { text: 'nowhere' }, 404],
      ['PUT', '/comments/999999', { text: 'nothing' }, 404],
      ['PUT', '/notification-settings', { decided: { inbox: 'yes', email: true } }, 400],
      ['PUT', '/notification-settings', { lunch: { inbox: true, email: true } }, 400],
      ['POST', '/notifications/read', { ids: ['one'] }, 400],
    ];
    for (const [method, url, body, status] of cases) {
      const answer = await service.call(method as 'POST', url, { body });
      expect(answer.statusCode, `${method} ${url} ${JSON.stringify(body)}`).toBe(status);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect((await service.call('GET', '/notifications', { roles: [] })).statusCode).toBe(401);
    expect(await count()).toBe(before);
  });
});

describe('mail without an SMTP server', () => {
  it('tries a mail the SMTP server does not take as the retry schedule says, then gives it up with the reason', async () => {
    // A port nothing listens on: each attempt is refused at once.
    const closed = await SmtpReceiver.start();
    const url = closed.url;
    await closed.close();
    const service = await startRefdata('sqlite', {
      REFDATA_SMTP_URL: url,
      REFDATA_MAIL_RETRY_SCHEDULE: '20ms,20ms',
    });
    try {
      await service.app.ready();
      await known(service, 'rita', 'Reviewer', 'rita@example.org');
      const library = await createLibrary(service);
      await service.call('PUT', `/status/submit?${iriQuery(library)}`);
      await expect
        .poll(
          async () =>
            (await service.db.selectFrom('mail_outbox').select('state').executeTakeFirst())?.state,
          { timeout: 10_000 },
        )
        .toBe('failed');
      const mail = await service.db.selectFrom('mail_outbox').selectAll().executeTakeFirstOrThrow();
      expect(mail.attempts).toBe(3);
      expect(mail.lease_until).toBe(0);
      expect(mail.error).toMatch(/ECONNREFUSED|connect/i);
      expect(mail.sent_at).toBeNull();
    } finally {
      await service.close();
    }
  });

  it('leaves mail to the other instances when this one does not take it on', async () => {
    const service = await startRefdata('sqlite', { REFDATA_WORKERS: 'webhooks,imports' });
    try {
      await service.app.ready();
      await known(service, 'rita', 'Reviewer', 'rita@example.org');
      const library = await createLibrary(service);
      await service.call('PUT', `/status/submit?${iriQuery(library)}`);
      // Queued with the submission, for whichever instance sends mail.
      const mail = await service.db.selectFrom('mail_outbox').selectAll().executeTakeFirstOrThrow();
      expect(mail).toMatchObject({ state: 'pending', attempts: 0, recipient: 'rita@example.org' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(
        (await service.db.selectFrom('mail_outbox').select('attempts').executeTakeFirstOrThrow())
          .attempts,
      ).toBe(0);
    } finally {
      await service.close();
    }
  });

  it('is written to the mail folder, one file a mail', async () => {
    const service = await startRefdata('sqlite');
    try {
      await service.app.ready();
      await known(service, 'rita', 'Reviewer', 'rita@example.org');
      const library = await createLibrary(service);
      await service.call('PUT', `/status/submit?${iriQuery(library)}`);
      const folder = join(service.config.dataDir, 'mail');
      await expect
        .poll(() => {
          try {
            return readdirSync(folder).length;
          } catch {
            return 0;
          }
        })
        .toBe(1);
      const [file] = readdirSync(folder);
      const message = readFileSync(join(folder, file as string), 'utf8');
      expect(message).toMatch(/^To: rita@example\.org$/m);
      expect(message).toMatch(/^Subject: \[refdata\] Submitted for review: Library/m);
    } finally {
      await service.close();
    }
  });
});
