import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  create,
  createLibrary,
  type Refdata,
  startListeningRefdata,
  uniqueName,
} from '../refdata/helpers.js';
import {
  accessibilityViolations,
  browserAvailable,
  browserSkipReason,
  launchChromium,
} from './chromium.js';

const CFIHOS_RDL = 'https://posccaesar.org/cfihos/rdl/2.0';
const LINE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><path d="M0 48L96 48"/><path d="M24 24L72 72"/></svg>';

describe.skipIf(!browserAvailable)(
  `refdata authoring and review in Chromium${browserAvailable ? '' : ` (skipped: ${browserSkipReason})`}`,
  () => {
    let browser: Browser;
    let service: Refdata;
    let url: string;
    const violations: string[] = [];
    const problems: string[] = [];

    beforeAll(async () => {
      mkdirSync('.test-output', { recursive: true });
      browser = await launchChromium();
      const started = await startListeningRefdata();
      service = started;
      url = started.url;
    });
    afterAll(async () => {
      await browser?.close();
      await service?.close();
    });

    /** A person signed in with a token of `role`, in a browser of their own. */
    const personWith = async (
      role: 'Creator' | 'Reviewer' | ('Creator' | 'Reviewer')[],
      subject: string,
      width = 1280,
    ) => {
      const context = await browser.newContext({
        bypassCSP: true,
        viewport: { width, height: 900 },
      });
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`${subject}: ${error.message}`));
      page.on('console', (message) => {
        // A refused form (422) or a conflict (409) is an answer the test asks for.
        if (message.type() === 'error' && !/status of 4(09|22)/.test(message.text()))
          problems.push(`${subject}: ${message.text()}`);
      });
      await page.goto(`${url}/sign-in`);
      await page.fill('#token', await service.token([role].flat(), subject, 3600));
      await Promise.all([
        page.waitForURL(`${url}/`),
        page.click('button:has-text("Sign in with token")'),
      ]);
      return { context, page };
    };

    const audit = async (page: Page, shot: string) => {
      violations.push(...(await accessibilityViolations(page)).map((entry) => `${shot}: ${entry}`));
      await page.screenshot({ path: `.test-output/refdata-authoring-${shot}.png`, fullPage: true });
    };

    const pageWidth = (page: Page) =>
      page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
            .document.documentElement.scrollWidth,
      );

    const save = async (page: Page) => {
      await Promise.all([page.waitForURL(/\?done=(created|saved)$/), page.click('button.primary')]);
      return `${service.config.settings.refdata.iriBase}${new URL(page.url()).pathname}`;
    };

    /** Types into a reference field and takes the suggestion with the keyboard. */
    const pick = async (page: Page, selector: string, text: string, iri: string) => {
      await page.fill(selector, text);
      await page.waitForSelector(`[role=option]:has-text("${text}")`);
      await page.press(selector, 'ArrowDown');
      await page.press(selector, 'Enter');
      const name = await page.getAttribute(selector, 'name');
      expect(
        await page.inputValue(`input[type=hidden][name="${name?.replace(/^pick:/, '')}"]`),
      ).toBe(iri);
    };

    const addRow = async (page: Page, list: string) => {
      await Promise.all([page.waitForLoadState('load'), page.click(`button[value="add:${list}"]`)]);
      await page.waitForSelector('form.authoring');
    };

    it('a Creator builds a CFIHOS library and IMF types in forms and submits; a Reviewer decides; a visitor sees it', async () => {
      const { context: creatorContext, page } = await personWith('Creator', 'carol');
      const suffix = String(Date.now()).slice(-6);

      // A CFIHOS library.
      await page.click('nav.site a:has-text("New")');
      await page.click('#families a:has-text("Library")');
      await page.fill('#f-name', `Pump library ${suffix}`);
      await page.fill('#f-description', 'Pumps and their parts');
      await addRow(page, '/upperOntologies');
      await page.fill('#f-upperOntologies-0', CFIHOS_RDL);
      await page.fill('#f-cfihosPrefix', 'PMP');
      await page.fill('#f-changeJustification', 'A new library');
      // A refused form first: the prefix must be upper case.
      await page.fill('#f-cfihosPrefix', 'pmp');
      await Promise.all([page.waitForLoadState('load'), page.click('button.primary')]);
      expect(await page.locator('#error-summary').innerText()).toContain('CFIHOS prefix');
      expect(await page.inputValue('#f-name')).toBe(`Pump library ${suffix}`);
      await audit(page, 'refused-library');
      await page.fill('#f-cfihosPrefix', 'PMP');
      const library = await save(page);
      expect(await page.locator('.notice').innerText()).toBe('The Draft was created.');

      // A picklist with three values, started from the library's page.
      await page.click('a:has-text("Add a term to this library")');
      await page.click('#families a:has-text("Picklist")');
      expect(await page.inputValue('#f-ontology')).toBe(`Pump library ${suffix}`);
      await page.fill('#f-name', `Seal types ${suffix}`);
      await page.fill('#f-description', 'How a pump is sealed');
      await page.fill('#f-subClassOf', 'https://example.org/SealType');
      for (const _ of [1, 2, 3]) await addRow(page, '/picklistValues');
      for (const [index, value] of [
        'Packing',
        'Single mechanical',
        'Double mechanical',
      ].entries()) {
        await page.fill(`#f-picklistValues-${index}-name`, value);
        await page.fill(`#f-picklistValues-${index}-description`, `${value} seal`);
      }
      await page.fill('#f-changeJustification', 'Seal types');
      await audit(page, 'picklist-form');
      const picklist = await save(page);

      // A property whose range is the picklist, picked by name with the keyboard.
      const newTerm = async (familyLabel: string) => {
        await page.goto(`${url}/authoring/new?ontology=${encodeURIComponent(library)}`);
        await page.click(`#families a:has-text("${familyLabel}")`);
      };
      await newTerm('Property');
      await page.fill('#f-name', `Seal type ${suffix}`);
      await page.fill('#f-description', 'The seal of a pump');
      await page.selectOption('#f-types-0', 'controlledText');
      await pick(page, '#f-range', `Seal types ${suffix}`, picklist);
      await page.fill('#f-changeJustification', 'Needed for pumps');
      const property = await save(page);

      // IMF attribute, terminal and two blocks, one a part of the other.
      await newTerm('IMF attribute type');
      await page.fill('#f-name', `Seal kind ${suffix}`);
      await page.fill('#f-description', 'Which seal');
      await pick(page, '#f-predicate', `Seal type ${suffix}`, property);
      await page.selectOption('#f-scopeQualifier', { label: 'designQualifier' });
      await page.fill('#f-changeJustification', 'IMF attribute');
      const attribute = await save(page);

      await newTerm('IMF terminal type');
      await page.fill('#f-name', `Suction ${suffix}`);
      await page.fill('#f-description', 'Where fluid comes in');
      await page.selectOption('#f-aspect', { label: 'productAspect' });
      await page.selectOption('#f-direction', 'input');
      await addRow(page, '/attributeReferences');
      await pick(page, '#f-attributeReferences-0-entityUri', `Seal kind ${suffix}`, attribute);
      await page.fill('#f-attributeReferences-0-minCardinality', '1');
      await page.fill('#f-changeJustification', 'IMF terminal');
      const terminal = await save(page);

      await newTerm('IMF block type');
      await page.fill('#f-name', `Impeller ${suffix}`);
      await page.fill('#f-description', 'The rotating part');
      await page.selectOption('#f-aspect', { label: 'productAspect' });
      await page.fill('#f-changeJustification', 'A part');
      const part = await save(page);

      await newTerm('IMF block type');
      await page.fill('#f-name', `Pump unit ${suffix}`);
      await page.fill('#f-description', 'A whole pump');
      await page.selectOption('#f-aspect', { label: 'productAspect' });
      await addRow(page, '/terminalReferences');
      await addRow(page, '/hasPartBlockReferences');
      await pick(page, '#f-terminalReferences-0-entityUri', `Suction ${suffix}`, terminal);
      await page.fill('#f-terminalReferences-0-minCardinality', '1');
      await pick(page, '#f-hasPartBlockReferences-0-entityUri', `Impeller ${suffix}`, part);
      await page.fill('#f-hasPartBlockReferences-0-minCardinality', '1');
      await page.fill('#f-changeJustification', 'The pump');
      await audit(page, 'block-form');
      const block = await save(page);

      // A symbol from an uploaded SVG, its points set on the drawing.
      await page.goto(`${url}/authoring/new/symbol`);
      await page.fill('#f-name', `Pump symbol ${suffix}`);
      await page.fill('#f-description', 'How a pump is drawn');
      await page.fill('#f-dcIdentifier', `PUMP-${suffix}`);
      await addRow(page, '/connectionPoints');
      await addRow(page, '/connectionPoints');
      await page.fill('#f-connectionPoints-0-id', 'in');
      await page.fill('#f-connectionPoints-0-direction', '180');
      await page.fill('#f-connectionPoints-1-id', 'out');
      await page.fill('#f-connectionPoints-1-direction', '0');
      await page.setInputFiles('input[type=file]', {
        name: 'pump.svg',
        mimeType: 'image/svg+xml',
        buffer: Buffer.from(LINE_SVG),
      });
      await page.waitForSelector('.drawing-preview svg path', { state: 'attached' });
      expect(await page.inputValue('#f-width')).toBe('96');
      expect(await page.inputValue('#f-height')).toBe('96');
      const drawing = page.locator('.drawing-preview svg');
      // A click where the drawing shows the point (x, y) of the symbol.
      const clickAt = async (target: string, x: number, y: number) => {
        await page.selectOption('select[id^=drawing-target]', target);
        await drawing.scrollIntoViewIfNeeded();
        const at = await drawing.evaluate(
          (svg, point) => {
            const element = svg as unknown as {
              getScreenCTM(): unknown;
              createSVGPoint(): {
                x: number;
                y: number;
                matrixTransform(matrix: unknown): { x: number; y: number };
              };
            };
            const screen = element.createSVGPoint();
            screen.x = point.x;
            screen.y = point.y;
            const moved = screen.matrixTransform(element.getScreenCTM());
            return { x: moved.x, y: moved.y };
          },
          { x, y },
        );
        await page.mouse.click(at.x, at.y);
      };
      await clickAt('centre', 48, 48);
      await clickAt('0', 4, 48);
      await clickAt('1', 92, 48);
      expect(Number(await page.inputValue('#f-centerOfRotation-x'))).toBeCloseTo(48, 0);
      expect(Number(await page.inputValue('#f-connectionPoints-0-x'))).toBeCloseTo(4, 0);
      expect(Number(await page.inputValue('#f-connectionPoints-1-y'))).toBeCloseTo(48, 0);
      // Then exactly on the edges, by numbers.
      await page.fill('#f-connectionPoints-0-x', '0');
      await page.fill('#f-connectionPoints-1-x', '96');
      await page.fill('#f-changeJustification', 'A symbol');
      await Promise.all([
        page.waitForLoadState('load'),
        page.click('button:has-text("Check the drawing")'),
      ]);
      expect(await page.locator('.notice').innerText()).toContain('it meets every rule');
      expect(await page.locator('.drawing-preview svg circle').count()).toBe(2);
      await audit(page, 'symbol-form');
      const symbol = await save(page);

      // An edit of one of them.
      await page.goto(`${url}${new URL(picklist).pathname}`);
      await page.click('#actions a:has-text("Edit")');
      await page.fill('#f-picklistValues-2-description', 'Two seals, back to back');
      await page.fill('#f-changeJustification', 'Clearer');
      await save(page);
      expect(await page.locator('.notice').innerText()).toBe('The Draft was saved.');

      // Submitting the pump unit offers the Drafts it names.
      await page.goto(`${url}${new URL(block).pathname}`);
      await page.click('#actions a:has-text("Submit for review")');
      for (const named of [library, terminal, part]) {
        expect(await page.isChecked(`input[name=also][value="${named}"]`)).toBe(true);
      }
      await audit(page, 'submit');
      await Promise.all([
        page.waitForURL(/done=submitted/),
        page.click('button:has-text("Submit for review")'),
      ]);
      // Then whatever is still a Draft, from My drafts.
      for (let guard = 0; guard < 10; guard += 1) {
        await page.goto(`${url}/authoring/mine`);
        if ((await page.locator('#status-Draft').count()) === 0) break;
        if (guard === 0) await audit(page, 'my-drafts');
        await page.click('#status-Draft + ul li:first-child a:first-child');
        await page.click('#actions a:has-text("Submit for review")');
        await Promise.all([
          page.waitForURL(/done=submitted/),
          page.click('button:has-text("Submit for review")'),
        ]);
      }
      expect(await page.locator('#status-Submitted + ul li').count()).toBe(8);

      // A Reviewer rejects the symbol and approves the rest.
      const { context: reviewerContext, page: review } = await personWith('Reviewer', 'rita');
      await review.click('nav.site a:has-text("Review")');
      await audit(review, 'queue');
      await review.click(`#queue a:has-text("Pump symbol ${suffix}")`);
      await audit(review, 'review');
      await review.click('button:has-text("Reject")');
      expect(await review.locator('#justification-error').innerText()).toContain('required');
      await review.fill('#justification', 'The connection points should be named inlet and outlet');
      await Promise.all([
        review.waitForURL(/done=rejected/),
        review.click('button:has-text("Reject")'),
      ]);
      // Oldest first: a package is one item, approved as a whole.
      for (let guard = 0; guard < 12; guard += 1) {
        await review.goto(`${url}/review`);
        if ((await review.locator('#queue a').count()) === 0) break;
        await review.click('#queue a >> nth=0');
        if (new URL(review.url()).pathname.startsWith('/review/packages/')) {
          if (guard === 0) await audit(review, 'package');
          await review.fill('#decision-text', 'Checked against the CFIHOS standard');
          await Promise.all([
            review.waitForURL(/done=approve/),
            review.click('button:has-text("Approve all")'),
          ]);
          continue;
        }
        await review.fill('#justification', 'Checked against the CFIHOS standard');
        await Promise.all([
          review.waitForURL(/done=approved/),
          review.click('button:has-text("Approve")'),
        ]);
      }
      expect(await review.locator('#queue-count').innerText()).toBe('Nothing waits for review.');

      // A visitor sees what was approved.
      const visitorContext = await browser.newContext();
      const visitor = await visitorContext.newPage();
      for (const [iri, status] of [
        [library, 'Approved'],
        [picklist, 'Approved'],
        [property, 'Approved'],
        [block, 'Approved'],
        [symbol, 'Rejected'],
      ] as const) {
        await visitor.goto(`${url}${new URL(iri).pathname}`);
        expect(await visitor.locator('#status').innerText()).toBe(status);
      }
      await visitor.goto(`${url}${new URL(picklist).pathname}`);
      expect(await visitor.locator('main').innerText()).toContain('Two seals, back to back');
      expect(await visitor.locator('#actions').count()).toBe(0);

      await Promise.all([creatorContext.close(), reviewerContext.close(), visitorContext.close()]);
      expect(problems).toEqual([]);
      expect(violations).toEqual([]);
    }, 240_000);

    it('two browsers editing one Draft: the second save gets the conflict page and loses nothing', async () => {
      const ontology = await createLibrary(service);
      // Ann's Draft, open in her laptop's browser and in her phone's: only she changes it.
      const draft = await create(
        service,
        '/rdl/terms/subclass',
        { name: uniqueName('Shared class'), ontology, subClassOf: ['https://example.org/Thing'] },
        'ann',
      );
      const first = await personWith('Creator', 'ann');
      const second = await personWith('Creator', 'ann', 375);
      const address = `${url}/authoring/edit?iri=${encodeURIComponent(draft.iri)}`;
      await first.page.goto(address);
      await second.page.goto(address);
      await first.page.fill('#f-description', 'Ann’s words');
      await first.page.fill('#f-changeJustification', 'Ann');
      await save(first.page);
      await second.page.fill('#f-description', 'Ann’s second thoughts');
      await second.page.fill('#f-changeJustification', 'Second thoughts');
      // Enter in a field saves, as the form's first button.
      await Promise.all([
        second.page.waitForLoadState('load'),
        second.page.press('#f-name', 'Enter'),
      ]);
      const page = second.page;
      expect(await page.locator('h1').innerText()).toContain('changed while you were editing');
      expect(await page.locator('main').innerText()).toContain('Ann’s words');
      expect(await page.locator('main').innerText()).toContain('Ann’s second thoughts');
      expect(await pageWidth(page)).toBeLessThanOrEqual(375);
      await audit(page, 'conflict-375');
      await page.click('button:has-text("Edit again from your version")');
      expect(await page.inputValue('#f-description')).toBe('Ann’s second thoughts');
      const stored = (
        await service.call('GET', `/rdl/terms/subclass?iri=${encodeURIComponent(draft.iri)}`)
      ).json();
      expect(stored.description).toBe('Ann’s words');
      expect(await pageWidth(page)).toBeLessThanOrEqual(375);
      await audit(page, 'edit-form-375');
      await Promise.all([first.context.close(), second.context.close()]);
      expect(violations).toEqual([]);
      expect(problems).toEqual([]);
    }, 90_000);

    it('every authoring and review page fits 375 px and passes the accessibility check', async () => {
      const ontology = await createLibrary(service);
      const waiting = await create(service, '/rdl/terms/subclass', {
        name: uniqueName('Narrow class'),
        ontology,
        subClassOf: ['https://example.org/Thing'],
      });
      // Nora's Draft: only its author opens its submit page.
      const draft = await create(
        service,
        '/rdl/terms/subclass',
        { name: uniqueName('Narrow draft'), ontology, subClassOf: [waiting.iri] },
        'nora',
      );
      await service.call('PUT', `/status/submit?iri=${encodeURIComponent(waiting.iri)}`);
      const { context, page } = await personWith(['Creator', 'Reviewer'], 'nora', 375);
      for (const [shot, address] of [
        ['new', '/authoring/new'],
        ['class-form', `/authoring/new/class?ontology=${encodeURIComponent(ontology)}`],
        ['symbol-form', '/authoring/new/symbol'],
        ['submit', `/authoring/submit?iri=${encodeURIComponent(draft.iri)}`],
        ['mine', '/authoring/mine'],
        ['queue', '/review'],
        ['review', `/review/resource?iri=${encodeURIComponent(waiting.iri)}`],
      ] as const) {
        const response = await page.goto(`${url}${address}`);
        expect(response?.status(), address).toBe(200);
        expect(await pageWidth(page), address).toBeLessThanOrEqual(375);
        await audit(page, `${shot}-375`);
      }
      // A refused form at 375 px: the summary and the messages fit too.
      await page.goto(`${url}/authoring/new/class?ontology=${encodeURIComponent(ontology)}`);
      await page.click('button.primary');
      await page.waitForSelector('#error-summary');
      expect(await pageWidth(page)).toBeLessThanOrEqual(375);
      await audit(page, 'refused-375');
      // A library refused for a rule quoting an address: the message wraps, nothing scrolls sideways.
      await page.goto(`${url}/authoring/new/library`);
      await page.fill('#f-name', uniqueName('Narrow pumps'));
      await page.fill('#f-description', 'Pumps');
      await page.fill('#f-cfihosPrefix', 'PMP');
      await page.fill('#f-changeJustification', 'Trying a prefix');
      await page.click('button.primary');
      await page.waitForSelector('#error-summary');
      expect(await page.textContent('#error-summary')).toContain(
        'Upper ontologies must include the CFIHOS RDL v2.0 library',
      );
      expect(await pageWidth(page)).toBeLessThanOrEqual(375);
      await audit(page, 'library-refused-375');
      await context.close();
      expect(violations).toEqual([]);
      expect(problems).toEqual([]);
    }, 90_000);
  },
);
