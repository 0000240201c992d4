import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/refdata/auth/roles.js';
import {
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  startListeningRefdata,
  uniqueName,
} from '../refdata/helpers.js';
import { SmtpReceiver } from '../refdata/smtp-receiver.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
  policyViolations,
} from './chromium.js';

const OUTPUT = '.test-output';

describe.skipIf(!browserAvailable)(
  `refdata's review process with three people in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata & { url: string };
    let smtp: SmtpReceiver;
    const contexts: BrowserContext[] = [];
    const violations: string[] = [];
    const problems: string[] = [];

    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      smtp = await SmtpReceiver.start();
      browser = await launchChromium();
      service = await startListeningRefdata({ REFDATA_SMTP_URL: smtp.url });
      // As a sign-in through the identity provider records them: name, verified address, roles.
      for (const [subject, name, roles] of [
        ['ann', 'Ann Author', 'Creator Reviewer'],
        ['rita', 'Rita Reviewer', 'Reviewer'],
        ['ravi', 'Ravi Reviewer', 'Reviewer'],
      ] as const) {
        await service.db
          .insertInto('people')
          .values({
            subject,
            name,
            username: subject,
            email: `${subject}@example.org`,
            roles,
            updated_at: 1,
          })
          .execute();
      }
    });
    afterAll(async () => {
      for (const context of contexts) await context.close();
      await browser?.close();
      await service?.close();
      await smtp?.close();
    });

    /** A person signed in with a token, in a browser of their own. */
    const person = async (subject: string, roles: Role[], width = 1280) => {
      const context = await browser.newContext({
        bypassCSP: true,
        viewport: { width, height: 900 },
      });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`${subject}: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && !/status of 4(03|09|22)/.test(message.text()))
          problems.push(`${subject}: ${message.text()}`);
      });
      await page.goto(`${service.url}/sign-in`);
      await page.fill('#token', await service.token(roles, subject, 3600));
      await Promise.all([
        page.waitForURL(`${service.url}/`),
        page.click('button:has-text("Sign in with token")'),
      ]);
      return page;
    };

    const audit = async (page: Page, shot: string) => {
      violations.push(...(await accessibilityViolations(page)).map((entry) => `${shot}: ${entry}`));
      await page.screenshot({ path: `${OUTPUT}/refdata-review-${shot}.png`, fullPage: true });
    };
    const pathOf = (iri: string) => new URL(iri).pathname;
    const mailsTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));
    const inboxBadge = async (page: Page) => {
      await page.goto(`${service.url}/`);
      return (await page.locator('#inbox-link .badge').count()) === 0
        ? 0
        : Number(await page.locator('#inbox-link .badge').innerText());
    };

    it('a package is submitted, one item sent back, fixed and resubmitted, discussed, and approved by another person, with mail and inbox', async () => {
      const library = await createLibrary(service, { name: uniqueName('Seal pumps') }).then(
        async (iri) => {
          // Ann's library, as all that follows: only its author submits a Draft.
          await service.db
            .updateTable('resources')
            .set({ created_by: 'ann', updated_by: 'ann' })
            .where('iri', '=', iri)
            .execute();
          return iri;
        },
      );
      const picklist = await create(
        service,
        '/cfihos/picklist',
        {
          name: uniqueName('Seal types'),
          ontology: library,
          subClassOf: 'https://example.org/List',
          picklistValues: [{ name: 'Single', description: 'One seal' }],
        },
        'ann',
      );
      const property = await create(
        service,
        '/general/property',
        {
          name: uniqueName('Seal type'),
          ontology: library,
          types: ['controlledText'],
          range: picklist.iri,
        },
        'ann',
      );
      const pump = await create(
        service,
        '/cfihos/entity',
        {
          name: uniqueName('Seal pump'),
          ontology: library,
          entityType: 'equipment',
          propertyReferences: [{ propertyUri: property.iri, minCardinality: 1, maxCardinality: 1 }],
        },
        'ann',
      );

      // Ann submits the class: the property, its picklist and the library come along.
      const ann = await person('ann', ['Creator', 'Reviewer']);
      await ann.goto(`${service.url}${pathOf(pump.iri)}`);
      await ann.click('#actions a:has-text("Submit for review")');
      for (const iri of [property.iri, picklist.iri, library])
        expect(await ann.isChecked(`input[name=also][value="${iri}"]`)).toBe(true);
      await ann.fill('#package-name', 'Seal pumps');
      await audit(ann, 'submit-package');
      await Promise.all([
        ann.waitForURL(/done=submitted/),
        ann.click('button:has-text("Submit for review")'),
      ]);

      // Her own package: the page says why she cannot approve it.
      const pack = await service.db
        .selectFrom('package_items')
        .select('package_id')
        .innerJoin('resources', 'resources.id', 'package_items.resource_id')
        .where('resources.iri', '=', pump.iri)
        .executeTakeFirstOrThrow();
      const packagePath = `/review/packages/${pack.package_id}`;
      await ann.goto(`${service.url}${packagePath}`);
      expect(await ann.locator('#four-eyes').innerText()).toContain('another Reviewer');
      expect(await ann.locator('button:has-text("Approve all")').count()).toBe(0);
      const ownApproval = await service.call('PUT', `/packages/${pack.package_id}/approve`, {
        roles: ['Reviewer'],
        subject: 'ann',
        body: { justification: 'Mine' },
      });
      expect(ownApproval.statusCode).toBe(403);

      // Both reviewers are told, by mail and in their inbox.
      await smtp.until(
        () => mailsTo('rita@example.org').length > 0 && mailsTo('ravi@example.org').length > 0,
      );
      const told = mailsTo('rita@example.org')[0];
      expect(told?.subject).toBe('[refdata] Submitted for review: Seal pumps');
      expect(told?.text).toContain(`${service.url}${packagePath}`);
      expect(mailsTo('ann@example.org')).toEqual([]);

      const rita = await person('rita', ['Reviewer']);
      expect(await inboxBadge(rita)).toBe(1);
      await rita.click('#inbox-link');
      await audit(rita, 'inbox');
      await rita.click('#inbox a:has-text("Submitted for review")');
      expect(new URL(rita.url()).pathname).toBe(packagePath);
      expect(await rita.locator('#items').innerText()).toContain('Seal pumps'.slice(0, 4));
      await audit(rita, 'package');
      // A question on the package, then the picklist sent back.
      await rita.fill('#comment-text', 'Which standard lists the seal types? <b>API 682</b>?');
      await Promise.all([
        rita.waitForURL(/#comment-\d+$/),
        rita.click('button:has-text("Comment")'),
      ]);
      expect(await rita.locator('.comment-text').first().innerText()).toContain('<b>API 682</b>?');
      await rita.click(`#items a:has-text("Review it alone") >> nth=0`);
      await rita.goto(`${service.url}/review/resource?${iriQuery(picklist.iri)}`);
      await audit(rita, 'review-item');
      await rita.fill('#justification', 'Add the double seal, as in API 682');
      await Promise.all([
        rita.waitForURL(/done=changes-requested/),
        rita.click('button:has-text("Request changes")'),
      ]);

      // Ann hears of both: the request by mail, with a link to the picklist.
      await smtp.until(() =>
        mailsTo('ann@example.org').some((mail) => mail.subject.includes('Changes requested')),
      );
      const request = mailsTo('ann@example.org').find((mail) =>
        mail.subject.includes('Changes requested'),
      );
      expect(request?.subject).toBe(`[refdata] Changes requested: ${picklist.name}`);
      expect(request?.text).toContain(`${service.url}${pathOf(picklist.iri)}`);
      expect(request?.text).toContain('Add the double seal');
      expect(
        mailsTo('ann@example.org').some((mail) =>
          mail.subject.startsWith('[refdata] New comment on the package Seal pumps'),
        ),
      ).toBe(true);
      expect(await inboxBadge(ann)).toBe(2);

      // On top of the picklist's page and form: the request. She answers on the package.
      await ann.goto(`${service.url}${pathOf(picklist.iri)}`);
      expect(await ann.locator('#change-request').innerText()).toContain('Add the double seal');
      await audit(ann, 'changes-requested');
      await ann.goto(`${service.url}${packagePath}`);
      await ann.fill('#comment-text', 'API 682, 4th edition: https://www.api.org/682');
      await Promise.all([ann.waitForURL(/#comment-\d+$/), ann.click('button:has-text("Comment")')]);
      const link = ann.locator('.comment-text a[href="https://www.api.org/682"]');
      expect(await link.getAttribute('rel')).toBe('nofollow ugc noopener noreferrer');
      // Her own comment, changed while it may be; Rita's has no Edit for her.
      expect(await ann.locator('#discussion a:has-text("Edit")').count()).toBe(1);
      await ann.click('#discussion a:has-text("Edit")');
      await audit(ann, 'comment-edit');
      await ann.fill('#comment-text', 'API 682, 4th edition, table 1: https://www.api.org/682');
      await Promise.all([ann.waitForURL(/#comment-\d+$/), ann.click('button:has-text("Save")')]);
      expect(await ann.locator('#discussion').innerText()).toContain('table 1');
      expect(await ann.locator('#discussion').innerText()).toContain('(edited)');
      await ann.goto(`${service.url}${pathOf(picklist.iri)}`);
      await ann.click('#actions a:has-text("Edit")');
      expect(await ann.locator('#change-request').innerText()).toContain('Add the double seal');
      await audit(ann, 'edit-after-request');
      await Promise.all([
        ann.waitForLoadState('load'),
        ann.click('button[value="add:/picklistValues"]'),
      ]);
      await ann.fill('#f-picklistValues-1-name', 'Double');
      await ann.fill('#f-picklistValues-1-description', 'Two seals, back to back');
      await ann.fill('#f-changeJustification', 'Double seal added');
      await Promise.all([ann.waitForURL(/done=saved/), ann.click('button.primary')]);
      await ann.click('#actions a:has-text("Submit for review")');
      await Promise.all([
        ann.waitForURL(/done=submitted/),
        ann.click('button:has-text("Submit for review")'),
      ]);
      const again = (await service.call('GET', `/packages/${pack.package_id}`)).json();
      expect(again).toMatchObject({ state: 'waiting', counts: { Submitted: 4 } });

      // Rita sees Ann's answer; Ravi, a second pair of eyes, approves the package.
      await rita.goto(`${service.url}${packagePath}`);
      expect(await rita.locator('#discussion').innerText()).toContain('4th edition');
      const ravi = await person('ravi', ['Reviewer'], 375);
      await ravi.goto(`${service.url}${packagePath}`);
      await audit(ravi, 'package-375');
      await ravi.fill('#decision-text', 'Complete, and the seal types match API 682');
      await Promise.all([
        ravi.waitForURL(/done=approve/),
        ravi.click('button:has-text("Approve all")'),
      ]);
      expect(await ravi.locator('#package-state').innerText()).toBe('Decided');
      for (const iri of [library, picklist.iri, property.iri, pump.iri]) {
        const row = await service.db
          .selectFrom('resources')
          .select('status')
          .where('iri', '=', iri)
          .executeTakeFirstOrThrow();
        expect(row.status, iri).toBe('Approved');
      }
      await smtp.until(() =>
        mailsTo('ann@example.org').some((mail) => mail.subject.startsWith('[refdata] Approved:')),
      );

      // Ann's inbox: the question, the request and the approval unread, then none.
      expect(await inboxBadge(ann)).toBe(3);
      await ann.click('#inbox-link');
      await Promise.all([
        ann.waitForURL(/done=read/),
        ann.click('button:has-text("Mark all as read")'),
      ]);
      expect(await ann.locator('#unread-count').innerText()).toBe('Nothing unread.');
      expect(await inboxBadge(ann)).toBe(0);
      await ann.goto(`${service.url}/account/notifications/settings`);
      await audit(ann, 'settings');
      await ann.uncheck('#commented-email');
      await Promise.all([ann.waitForURL(/done=saved/), ann.click('button:has-text("Save")')]);
      expect(await ann.isChecked('#commented-email')).toBe(false);
      expect(await ann.isChecked('#commented-inbox')).toBe(true);

      expect(violations).toEqual([]);
      expect(problems).toEqual([]);
    }, 180_000);

    it('works under the enforced security policy for a returning Reviewer and a Reader', async () => {
      const pack = await service.db
        .selectFrom('packages')
        .select('id')
        .orderBy('id')
        .executeTakeFirstOrThrow();
      for (const [subject, roles] of [
        ['rita', ['Reviewer']],
        ['rob', ['Reader']],
      ] as const) {
        // No bypassCSP: the pages' own policy is enforced, as in any browser.
        const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
        contexts.push(context);
        const page = await context.newPage();
        const blocked = policyViolations(page);
        for (let visit = 0; visit < 2; visit += 1) {
          // The second time as a returning user, whose session is already there.
          if (visit === 0) {
            await page.goto(`${service.url}/sign-in`);
            await page.fill('#token', await service.token([...roles], subject, 3600));
            await Promise.all([
              page.waitForURL(`${service.url}/`),
              page.click('button:has-text("Sign in with token")'),
            ]);
          }
          const shown = await page.goto(`${service.url}/review/packages/${pack.id}`);
          expect(shown?.status()).toBe(200);
          expect(await page.locator('#discussion').count()).toBe(1);
          await page.goto(`${service.url}/account/notifications`);
          expect(await page.locator('h1').innerText()).toBe('Inbox');
          await page.goto(`${service.url}/account/notifications/settings`);
          expect(await page.locator('#decided-inbox').count()).toBe(1);
        }
        const review = await page.goto(`${service.url}/review`);
        expect(review?.status()).toBe(subject === 'rita' ? 200 : 403);
        expect(blocked).toEqual([]);
      }
    }, 60_000);

    it('a rejected symbol is copied into a new Draft by its author, with a new identifier', async () => {
      const identifier = `RV${Date.now()}`;
      const symbol = await create(
        service,
        '/esl/engineeringSymbols',
        {
          name: uniqueName('Ball valve'),
          dcIdentifier: identifier,
          width: 96,
          height: 96,
          shape:
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><path d="M 10 48 L 86 48" stroke="#000" fill="none"/></svg>',
          centerOfRotation: { x: 48, y: 48 },
          connectionPoints: [{ id: 'in', x: 0, y: 48, direction: 180 }],
        },
        'ann',
      );
      await service.call('PUT', `/status/submit?${iriQuery(symbol.iri)}`, { subject: 'ann' });
      await service.call('PUT', `/status/reject?${iriQuery(symbol.iri)}`, {
        roles: ['Reviewer'],
        subject: 'rita',
        body: { justification: 'Draw the ball, not only the line' },
      });
      const ann = await person('ann', ['Creator'], 375);
      await ann.goto(`${service.url}${pathOf(symbol.iri)}`);
      expect(await ann.locator('#rejection').innerText()).toContain('Draw the ball');
      await ann.click('#actions a:has-text("Copy into a new Draft")');
      expect(await ann.locator('#rejection').innerText()).toContain('needs its own identifier');
      expect(await ann.inputValue('#f-name')).toBe(symbol.name);
      expect(await ann.inputValue('#f-dcIdentifier')).toBe('');
      await audit(ann, 'copy-375');
      await ann.fill('#f-dcIdentifier', `${identifier}-2`);
      await Promise.all([ann.waitForURL(/done=created/), ann.click('button.primary')]);
      expect(new URL(ann.url()).pathname).toBe(`/esl/symbols/${identifier}-2`);
      expect(await ann.locator('#status').innerText()).toBe('Draft');
      // Someone else is not offered the copy, and is refused it.
      const rita = await person('rita', ['Creator', 'Reviewer']);
      await rita.goto(`${service.url}${pathOf(symbol.iri)}`);
      expect(await rita.locator('#actions a:has-text("Copy into a new Draft")').count()).toBe(0);
      const refused = await rita.goto(`${service.url}/authoring/copy?${iriQuery(symbol.iri)}`);
      expect(refused?.status()).toBe(403);
      expect(violations).toEqual([]);
      expect(problems).toEqual([]);
    }, 90_000);
  },
);
