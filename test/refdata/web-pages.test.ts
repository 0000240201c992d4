import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import {
  approve,
  create,
  createLibrary,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';
import { Browser, HTML } from './page-client.js';

describe.each(DATABASE_KINDS)('refdata web pages on %s', (kind) => {
  let service: Refdata;
  let approved: string;
  let draft: string;
  const pathOf = (iri: string) => iri.replace(service.config.settings.refdata.iriBase, '');
  beforeAll(async () => {
    service = await startRefdata(kind);
    approved = await createLibrary(service, { name: uniqueName('Approved library') });
    await approve(service, approved);
    draft = await createLibrary(service, { name: uniqueName('Draft library') });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('says at the top of a Deprecated resource what replaces it, with a link', async () => {
    const old = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Old pump'),
      ontology: approved,
      subClassOf: ['https://example.org/Pump'],
    });
    await approve(service, old.iri);
    const page = async () => (await new Browser(service).get(pathOf(old.iri))).body;
    expect(await page()).not.toContain('id="deprecation"');
    const replacement = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('New pump'),
      ontology: approved,
      subClassOf: ['https://example.org/Pump'],
      replaces: old.iri,
    });
    await approve(service, replacement.iri);
    const shown = await page();
    const notice = /<p class="notice error" id="deprecation">(.*?)<\/p>/.exec(shown)?.[1] ?? '';
    expect(notice).toContain(`<a href="${pathOf(replacement.iri)}">${replacement.name}</a>`);
    expect(shown.indexOf('id="deprecation"')).toBeLessThan(shown.indexOf('id="definition"'));
  });

  it('leaves Rejected resources out for visitors unless they include them: search, library terms, symbol gallery', async () => {
    const library = await createLibrary(service, { name: uniqueName('Rejections library') });
    await approve(service, library);
    const word = `Zyx${Date.now()}`;
    const kept = await create(service, '/rdl/terms/subclass', {
      name: `${word} kept`,
      ontology: library,
      subClassOf: ['https://example.org/Pump'],
    });
    await approve(service, kept.iri);
    const rejectedClass = await create(service, '/rdl/terms/subclass', {
      name: `${word} refused`,
      ontology: library,
      subClassOf: ['https://example.org/Pump'],
    });
    const symbol = await create(service, '/esl/engineeringSymbols', {
      name: `${word} symbol`,
      dcIdentifier: `RJ${Date.now()}`,
      width: 96,
      height: 48,
      shape:
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 48"><path d="M0 0 L96 48"/></svg>',
      centerOfRotation: { x: 48, y: 24 },
    });
    for (const iri of [rejectedClass.iri, symbol.iri]) {
      expect(
        (await service.call('PUT', `/status/submit?iri=${encodeURIComponent(iri)}`)).statusCode,
      ).toBe(204);
      const refused = await service.call('PUT', `/status/reject?iri=${encodeURIComponent(iri)}`, {
        roles: ['Reviewer'],
        body: { justification: 'Not a kind of pump' },
      });
      expect(refused.statusCode).toBe(204);
    }
    const visitor = new Browser(service);
    const search = (await visitor.get(`/search?q=${word}`)).body;
    expect(search).toContain(`href="${pathOf(kept.iri)}"`);
    expect(search).not.toContain(`href="${pathOf(rejectedClass.iri)}"`);
    // The status filter shows what is applied, and offers Rejected with its count.
    expect(search).toContain('value="Approved" checked');
    expect(search).toMatch(/value="Rejected"> Rejected <span class="count">\(2\)/);
    expect(search).toContain('id="rejected-hint"');
    const included = (await visitor.get(`/search?q=${word}&status=Approved&status=Rejected`)).body;
    expect(included).toContain(`href="${pathOf(rejectedClass.iri)}"`);
    expect(included).toContain(`href="${pathOf(kept.iri)}"`);

    const terms = (await visitor.get(pathOf(library))).body;
    const termList = /<ul id="term-list"[^>]*>([\s\S]*?)<\/ul>/.exec(terms)?.[1] ?? '';
    expect(termList).toContain(`href="${pathOf(kept.iri)}"`);
    expect(termList).not.toContain(`href="${pathOf(rejectedClass.iri)}"`);
    expect(terms).toMatch(/value="Rejected"> Rejected <span class="count">\(1\)/);
    const allTerms = (await visitor.get(`${pathOf(library)}?status=Approved&status=Rejected`)).body;
    expect(/<ul id="term-list"[^>]*>([\s\S]*?)<\/ul>/.exec(allTerms)?.[1]).toContain(
      `href="${pathOf(rejectedClass.iri)}"`,
    );

    const gallery = (await visitor.get('/symbols')).body;
    expect(gallery).not.toContain(`href="${pathOf(symbol.iri)}"`);
    expect(gallery).toMatch(/name="rejected" value="include"> Include the \d+ rejected symbols?/);
    const galleryWith = (await visitor.get('/symbols?rejected=include')).body;
    expect(galleryWith).toContain(`href="${pathOf(symbol.iri)}"`);
    expect((await visitor.get('/symbols?rejected=all')).statusCode).toBe(400);
    // People signed in see every status, as before.
    const reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'frank'));
    expect((await reader.get(`/search?q=${word}`)).body).toContain(
      `href="${pathOf(rejectedClass.iri)}"`,
    );
    expect((await reader.get('/symbols')).body).toContain(`href="${pathOf(symbol.iri)}"`);
  });

  it('reads a CFIHOS class at a glance: its properties as a table, inherited ones with their source, picklist values inline', async () => {
    const ontology = await createLibrary(service, { name: uniqueName('Glance library') });
    const dimension = await create(service, '/cfihos/dimension', {
      name: uniqueName('Pressure'),
      ontology,
      dimensionCode: `P${Date.now()}`,
    });
    const picklist = await create(service, '/cfihos/picklist', {
      name: uniqueName('Seal kinds'),
      ontology,
      subClassOf: 'http://x.example/picklist',
      picklistValues: [
        { name: 'Mechanical seal', description: 'A mechanical seal' },
        { name: 'Gland packing', description: 'Packing' },
      ],
    });
    const sealKind = await create(service, '/general/property', {
      name: uniqueName('Seal kind'),
      ontology,
      types: ['controlledText'],
      range: picklist.iri,
    });
    const designPressure = await create(service, '/general/property', {
      name: uniqueName('Design pressure'),
      ontology,
      types: ['number'],
      range: dimension.iri,
    });
    const serialNumber = await create(service, '/general/property', {
      name: uniqueName('Serial number'),
      ontology,
      types: ['freeText'],
      range: 'http://www.w3.org/2001/XMLSchema#string',
    });
    const pump = await create(service, '/cfihos/entity', {
      name: uniqueName('Pump'),
      ontology,
      entityType: 'equipment',
      propertyReferences: [
        { propertyUri: designPressure.iri, minCardinality: 1, maxCardinality: 1 },
      ],
    });
    const centrifugal = await create(service, '/cfihos/entity', {
      name: uniqueName('Centrifugal pump'),
      ontology,
      entityType: 'equipment',
      superEntity: pump.iri,
      isAbstract: false,
      propertyReferences: [
        { propertyUri: sealKind.iri, minCardinality: 0, maxCardinality: 2 },
        { propertyUri: serialNumber.iri, minCardinality: 0, maxCardinality: 1 },
      ],
    });
    const reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'olga'));
    const page = (await reader.get(pathOf(centrifugal.iri))).body;
    const table = /<table id="class-properties"[\s\S]*?<\/table>/.exec(page)?.[0] ?? '';
    const rows = table.split('<tr>').slice(2);
    expect(rows).toHaveLength(3);
    // Its own first, named and linked, with the picklist's values a click away.
    expect(rows[0]).toContain(`href="${pathOf(sealKind.iri)}">${sealKind.name}</a>`);
    expect(rows[0]).toContain('<td data-label="Value">Picklist</td>');
    expect(rows[0]).toContain(`href="${pathOf(picklist.iri)}">${picklist.name}</a>`);
    expect(rows[0]).toMatch(
      /<summary>2 values<span class="visually-hidden"> of [^<]+<\/span><\/summary>/,
    );
    expect(rows[0]).toContain('Gland packing</a>');
    expect(rows[0]).toContain('<td data-label="How many">0..2</td>');
    expect(rows[0]).toContain('<td data-label="From">This class</td>');
    // A datatype by its short name, as the property's own page names it.
    expect(rows[1]).toContain('<td data-label="Value">Text</td>');
    expect(rows[1]).toMatch(
      /<td data-label="Dimension or picklist"><code class="iri"[^>]*>xsd:string<\/code><\/td>/,
    );
    // Then the inherited one, with the superclass it comes from.
    expect(rows[2]).toContain(`href="${pathOf(designPressure.iri)}">${designPressure.name}</a>`);
    expect(rows[2]).toContain('<td data-label="Value">Number</td>');
    expect(rows[2]).toContain(`href="${pathOf(dimension.iri)}">${dimension.name}</a>`);
    expect(rows[2]).toContain(
      `<td data-label="From"><a href="${pathOf(pump.iri)}">${pump.name}</a></td>`,
    );
    expect(page).toContain('2 of its own, 1 inherited from its superclasses.');
    // The details read as words: Yes/No, the entity type; no raw restriction outside the RDF view.
    const details = /<dl id="details"[\s\S]*?<\/dl>/.exec(page)?.[0] ?? '';
    expect(details).toContain('<dd data-field="isAbstract">No</dd>');
    expect(details).toContain('<dd data-field="entityType">equipment</dd>');
    const outsideRdf = page.replace(/<details id="rdf-view">[\s\S]*?<\/details>/, '');
    expect(outsideRdf).not.toContain('owl:Restriction');
    expect(page).toContain('owl:Restriction');
    // A property's range by name; the breadcrumbs climb to the superclass.
    const property = (await reader.get(pathOf(sealKind.iri))).body;
    expect(/<dd data-field="range">[\s\S]*?<\/dd>/.exec(property)?.[0]).toContain(
      `href="${pathOf(picklist.iri)}">${picklist.name}</a>`,
    );
    expect(/<nav aria-label="Hierarchy"[\s\S]*?<\/nav>/.exec(page)?.[0]).toContain(
      `href="${pathOf(pump.iri)}">${pump.name}</a>`,
    );
    for (const any of [page, property])
      expect(any).not.toMatch(/\bn3-\d+\b|_:b?\d+|\bdf_\d+_\d+\b/);
  });

  it('tells apart top classes of one name in the class hierarchy by what scopes their names', async () => {
    const ontology = await createLibrary(service, { name: uniqueName('Namesakes library') });
    for (const entityType of ['equipment', 'tag'])
      await create(service, '/cfihos/entity', {
        name: 'class',
        ontology,
        entityType,
        propertyReferences: [],
      });
    const reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'olga'));
    const page = (await reader.get(pathOf(ontology))).body;
    const tree = /<ul class="tree" id="hierarchy">[\s\S]*?<\/ul>/.exec(page)?.[0] ?? '';
    expect(tree).toMatch(/>class<\/a> <span class="hint">\(equipment\)<\/span>/);
    expect(tree).toMatch(/>class<\/a> <span class="hint">\(tag\)<\/span>/);
  });

  it('follows the chosen language in the breadcrumbs, each step by its label there or else its own name', async () => {
    const pumpName = uniqueName('Pump');
    const pump = await create(service, '/rdl/terms/subclass', {
      name: pumpName,
      ontology: approved,
      subClassOf: ['https://example.org/Equipment'],
      translations: [{ language: 'de', name: 'Pumpe' }],
    });
    await approve(service, pump.iri);
    const name = uniqueName('Centrifugal pump');
    const child = await create(service, '/rdl/terms/subclass', {
      name,
      ontology: approved,
      subClassOf: [pump.iri],
      translations: [{ language: 'de', name: 'Kreiselpumpe' }],
    });
    await approve(service, child.iri);
    const trail = async (query: string) => {
      const page = await service.app.inject({
        url: `${pathOf(child.iri)}${query}`,
        headers: { accept: HTML },
      });
      return /<nav aria-label="Hierarchy"[\s\S]*?<\/nav>/.exec(page.body)?.[0] ?? '';
    };
    const german = await trail('?lang=de');
    expect(german).toContain(`href="${pathOf(pump.iri)}"><span lang="de">Pumpe</span></a>`);
    expect(german).toContain('<li aria-current="page"><span lang="de">Kreiselpumpe</span></li>');
    // No step keeps its English name where it has a German one.
    expect(german).not.toContain(pumpName);
    const english = await trail('?lang=en');
    expect(english).toContain(`href="${pathOf(pump.iri)}">${pumpName}</a>`);
    expect(english).toContain(`<li aria-current="page">${name}</li>`);
  });

  it('shows a class in the language the browser asks for, with a chooser and every language listed', async () => {
    const name = uniqueName('Centrifugal pump');
    const created = await create(service, '/rdl/terms/subclass', {
      name,
      description: 'Moves fluid with an impeller',
      ontology: approved,
      subClassOf: ['https://example.org/Pump'],
      translations: [{ language: 'nb', name: 'Sentrifugalpumpe', description: 'Flytter væske' }],
      synonyms: [{ language: 'de', label: 'Kreiselpumpe' }],
    });
    await approve(service, created.iri);
    const visit = (accept?: string, query = '') =>
      service.app.inject({
        url: `${pathOf(created.iri)}${query}`,
        headers: { accept: HTML, ...(accept ? { 'accept-language': accept } : {}) },
      });
    const title = (body: string) => /<h1[^>]*>([^<]*)<\/h1>/.exec(body)?.[1];
    const norwegian = await visit('nb-NO,nb;q=0.9,en;q=0.5');
    expect(title(norwegian.body)).toBe('Sentrifugalpumpe');
    expect(norwegian.body).toContain('<p id="definition" lang="nb">Flytter væske</p>');
    expect(norwegian.headers.vary).toMatch(/accept-language/i);
    expect(title((await visit()).body)).toBe(name);
    expect(title((await visit('fr, de;q=0.5')).body)).toBe(name);
    // The chooser: a form that works without script, and wins over the header.
    const chosen = await visit('nb', '?lang=en');
    expect(title(chosen.body)).toBe(name);
    expect(chosen.body).toContain('<option value="nb">Norwegian Bokmål (nb)</option>');
    const table = /<table id="label-table"[\s\S]*?<\/table>/.exec(chosen.body)?.[0] ?? '';
    expect(table).toContain(
      '<tr lang="de"><th scope="row" lang="en">German (de)</th><td data-label="Preferred label"></td><td data-label="Definition"></td><td data-label="Other labels">Kreiselpumpe</td></tr>',
    );
    expect((await visit(undefined, '?lang=en_US')).statusCode).toBe(400);
    // Search finds it by its Norwegian name, and keeps to the languages ticked.
    const browser = new Browser(service);
    const found = (await browser.get('/search?q=Sentrifugalpumpe')).body;
    expect(found).toContain(`href="${pathOf(created.iri)}"`);
    expect(found).toMatch(
      /name="language" value="nb"> Norwegian Bokmål \(nb\) <span class="count">\(\d+\)/,
    );
    const inGerman = (await browser.get('/search?q=Sentrifugalpumpe&language=de')).body;
    expect(inGerman).toContain(`href="${pathOf(created.iri)}"`);
    expect(inGerman).toContain('name="language" value="de" checked');
    expect((await browser.get('/search?q=Sentrifugalpumpe&language=fr')).body).not.toContain(
      `href="${pathOf(created.iri)}"`,
    );
    expect((await browser.get('/search?language=xx_YY')).statusCode).toBe(400);
  });

  it('shows anonymous visitors the libraries and content, but not Drafts', async () => {
    const browser = new Browser(service);
    const home = await browser.get('/');
    expect(home.statusCode).toBe(200);
    expect(home.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(home.body).toContain(`href="${pathOf(approved)}"`);
    expect(home.body).not.toContain(`href="${pathOf(draft)}"`);
    expect(home.body).toContain('href="/sign-in?return_to=%2F"');

    const page = await browser.get(pathOf(approved));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(
      `<code id="iri" class="iri" data-copy-text="${approved}" data-copy-label="Copy IRI">${approved}</code>`,
    );
    expect(page.body).toContain('Agreed by the working group');
    const hidden = await browser.get(pathOf(draft));
    expect(hidden.statusCode).toBe(404);
    expect(hidden.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(hidden.body).toContain('Drafts are shown to people who are signed in');
  });

  it('downloads each representation from the page, and refuses an unknown format with a page', async () => {
    const browser = new Browser(service);
    const turtle = await browser.get(`${pathOf(approved)}?format=ttl`);
    expect(turtle.statusCode).toBe(200);
    expect(turtle.headers['content-type']).toMatch(/^text\/turtle/);
    expect(turtle.headers['content-disposition']).toMatch(/^attachment; filename=".+\.ttl"$/);
    expect(turtle.body).toContain(approved);
    for (const format of ['json', 'jsonld', 'rdf', 'nt', 'trig', 'nq']) {
      expect((await browser.get(`${pathOf(approved)}?format=${format}`)).statusCode, format).toBe(
        200,
      );
    }
    // Saving a link sends whatever Accept the browser likes; the format decides.
    const saved = await service.app.inject({ url: `${pathOf(approved)}?format=ttl` });
    expect(saved.statusCode).toBe(200);
    expect(saved.headers['content-type']).toMatch(/^text\/turtle/);
    const unknown = await browser.get(`${pathOf(approved)}?format=exe`);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    // A Draft cannot be downloaded anonymously either.
    expect((await browser.get(`${pathOf(draft)}?format=ttl`)).statusCode).toBe(404);
  });

  it('keeps the API as it was: bearer tokens, Problem Details, by Accept at the same IRI', async () => {
    const json = await service.app.inject({
      url: pathOf(approved),
      headers: { accept: 'application/json' },
    });
    expect(json.statusCode).toBe(401);
    expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
    const tie = await service.app.inject({
      url: pathOf(approved),
      headers: { accept: 'application/json, text/html' },
    });
    expect(tie.statusCode).toBe(401);
    const withToken = await service.call('GET', pathOf(draft), {
      roles: ['Reader'],
      headers: { accept: HTML },
    });
    expect(withToken.statusCode).toBe(200);
    const unknownApi = await service.app.inject({ url: '/no/such/page' });
    expect(unknownApi.headers['content-type']).toMatch(/^application\/problem\+json/);
    const unknownPage = await service.app.inject({
      url: '/no/such/page',
      headers: { accept: HTML },
    });
    expect(unknownPage.statusCode).toBe(404);
    expect(unknownPage.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(unknownPage.body).toContain('Page not found');
  });

  it('searches with filters and counts, keeps it all in the address, and hides Drafts from visitors', async () => {
    const browser = new Browser(service);
    const word = approved.slice(approved.lastIndexOf('/') + 1).split('-')[0] ?? '';
    const found = await browser.get(`/search?q=${encodeURIComponent(word)}`);
    expect(found.statusCode).toBe(200);
    expect(found.body).toContain(`href="${pathOf(approved)}"`);
    // The family filter offers libraries with how many results they would give.
    expect(found.body).toMatch(/name="family" value="library">[^<]+<span class="count">\(\d+\)/);
    const everything = await browser.get('/search');
    expect(everything.body).toContain(`href="${pathOf(approved)}"`);
    expect(everything.body).not.toContain(`href="${pathOf(draft)}"`);
    expect(everything.body).not.toContain('value="Draft"');
    const filtered = await browser.get('/search?status=Approved&family=library');
    expect(filtered.body).toContain('value="Approved" checked');
    expect(filtered.body).toContain(`href="${pathOf(approved)}"`);
    for (const bad of [
      '/search?status=Draft',
      '/search?family=spaceship',
      `/search?q=${'x'.repeat(201)}`,
      '/search?cursor=not-a-cursor',
      '/search?colour=red',
    ]) {
      const answer = await browser.get(bad);
      expect(answer.statusCode, bad).toBe(400);
      expect(answer.headers['content-type'], bad).toBe('text/html; charset=utf-8');
    }
    const signedIn = new Browser(service);
    await signedIn.signInWithToken(await service.token(['Reader'], 'frank'));
    const withDrafts = await signedIn.get('/search?status=Draft');
    expect(withDrafts.body).toContain(`href="${pathOf(draft)}"`);
  });

  it('shows a library’s terms, filtered and paged, and its class hierarchy as a tree', async () => {
    const library = await createLibrary(service, { name: uniqueName('Hierarchy library') });
    await approve(service, library);
    const made: string[] = [];
    let parent = 'http://example.org/Thing';
    for (const name of ['Equipment', 'Pump', 'Centrifugal pump']) {
      const term = await create(service, '/rdl/terms/subclass', {
        name: uniqueName(name),
        ontology: library,
        subClassOf: [parent],
      });
      await approve(service, term.iri);
      made.push(term.iri);
      parent = term.iri;
    }
    const hidden = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Unfinished'),
      ontology: library,
      subClassOf: [made[0] as string],
    });
    const browser = new Browser(service);
    const page = await browser.get(pathOf(library));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<p id="term-count">3 terms</p>');
    expect(page.body).not.toContain(pathOf(hidden.iri));
    // The tree opens a level at a time: Equipment > Pump > Centrifugal pump.
    const [equipment, pump, centrifugal] = made as [string, string, string];
    const tree = /<ul class="tree" id="hierarchy">([\s\S]*?)<\/ul>/.exec(page.body)?.[1] ?? '';
    expect(tree).toContain(`href="${pathOf(equipment)}"`);
    expect(tree).not.toContain(`href="${pathOf(pump)}"`);
    const level = (iri: string) => `/hierarchy/subclasses?iri=${encodeURIComponent(iri)}`;
    // Without script, the opened level links to the class's page, which lists it.
    expect(tree).toContain(`data-subtree="${level(equipment)}"`);
    expect(tree).toContain(`href="${pathOf(equipment)}#subclasses">Show the 1 subclass of`);
    const second = await browser.get(level(equipment));
    expect(second.statusCode).toBe(200);
    expect(second.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(second.body).toMatch(/^<ul class="tree">/);
    expect(second.body).toContain(`href="${pathOf(pump)}"`);
    expect(second.body).not.toContain(pathOf(hidden.iri));
    expect(second.body).toContain(`data-subtree="${level(pump)}"`);
    expect((await browser.get(level(pump))).body).toContain(`href="${pathOf(centrifugal)}"`);
    expect((await browser.get(level(centrifugal))).body).toBe('<ul class="tree"></ul>');
    // A class's page: its breadcrumbs from the library down, and its subclasses.
    const pumpPage = (await browser.get(pathOf(pump))).body;
    const trail = /<nav aria-label="Hierarchy"[^>]*>([\s\S]*?)<\/nav>/.exec(pumpPage)?.[1] ?? '';
    expect(trail.indexOf(pathOf(library))).toBeGreaterThan(-1);
    expect(trail.indexOf(pathOf(equipment))).toBeGreaterThan(trail.indexOf(pathOf(library)));
    expect(trail).toContain('href="http://example.org/Thing"');
    expect(trail).toMatch(/<li aria-current="page">[^<]*Pump/);
    expect(pumpPage).toContain('<h2 id="subclasses">Subclasses (1)</h2>');
    expect(pumpPage.slice(pumpPage.indexOf('id="subclasses"'))).toContain(pathOf(centrifugal));
    for (const bad of [
      '/hierarchy/subclasses',
      `/hierarchy/subclasses?iri=${'x'.repeat(2049)}`,
      `${level(equipment)}&depth=2`,
    ])
      expect((await browser.get(bad)).statusCode, bad).toBe(400);
    expect((await browser.get(level('https://example.org/nothing-here'))).statusCode).toBe(404);
    // A Draft's level is not shown to visitors.
    expect((await browser.get(level(hidden.iri))).statusCode).toBe(404);
    const filtered = await browser.get(`${pathOf(library)}?family=property`);
    expect(filtered.body).toContain('<p id="term-count">0 terms</p>');
    expect((await browser.get(`${pathOf(library)}?page=0`)).statusCode).toBe(400);
    const signedIn = new Browser(service);
    await signedIn.signInWithToken(await service.token(['Reader'], 'gina'));
    expect((await signedIn.get(pathOf(library))).body).toContain(pathOf(hidden.iri));
    expect((await signedIn.get(level(equipment))).body).toContain(pathOf(hidden.iri));
  });

  it('draws each family as what it is: relations both ways, picklist values, IMF structure, symbols', async () => {
    const IMF = 'http://ns.imfid.org/imf#';
    const ontology = await createLibrary(service, { name: uniqueName('Families library') });
    const reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'hana'));
    const page = async (iri: string) => {
      const answer = await reader.get(pathOf(iri));
      expect(answer.statusCode, iri).toBe(200);
      return answer.body;
    };

    const parent = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Valve'),
      ontology,
      subClassOf: ['http://example.org/Equipment'],
    });
    const child = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Ball valve'),
      ontology,
      subClassOf: [parent.iri],
    });
    expect(await page(parent.iri)).toMatch(
      new RegExp(
        `<h2 id="subclasses">Subclasses \\(1\\)</h2><ul class="tree" id="subclass-tree"><li><a href="${pathOf(child.iri)}">`,
      ),
    );
    expect(await page(parent.iri)).not.toContain('data-field="subClassOf"');

    const picklist = await create(service, '/cfihos/picklist', {
      name: uniqueName('Seal types'),
      ontology,
      subClassOf: 'http://x.example/picklist',
      picklistValues: [
        { name: 'Mechanical', description: 'A mechanical seal' },
        { name: 'Packing', description: 'Gland <packing>' },
      ],
    });
    const values = await page(picklist.iri);
    expect(values).toContain('<h2>Values (2)</h2>');
    expect(values).toContain('<dd>Gland &lt;packing&gt;</dd>');

    const attribute = await create(service, '/imf/attributetypes', {
      name: uniqueName('Temperature'),
      ontology,
      predicate: 'http://example.org/temperature',
      rangeQualifier: `${IMF}maximumQualifier`,
    });
    const terminal = await create(service, '/imf/terminaltypes', {
      name: uniqueName('Outlet'),
      ontology,
      aspect: `${IMF}productAspect`,
      direction: 'output',
      referenceTerms: [],
      attributeReferences: [{ entityUri: attribute.iri, minCardinality: 1, maxCardinality: 1 }],
    });
    const block = await create(service, '/imf/blocktypes', {
      name: uniqueName('Transmitter'),
      ontology,
      aspect: `${IMF}functionAspect`,
      referenceTerms: [],
      attributeReferences: [{ entityUri: attribute.iri, minCardinality: 0 }],
      terminalReferences: [{ entityUri: terminal.iri, minCardinality: 1, maxCardinality: 2 }],
      hasPartBlockReferences: [],
    });
    const structure = await page(block.iri);
    const terminals = /<ul id="imf-terminals">[\s\S]*?<\/ul>/.exec(structure)?.[0] ?? '';
    expect(terminals).toContain(`href="${pathOf(terminal.iri)}"`);
    expect(terminals).toContain('1..2');
    expect(terminals).toContain('out →');
    const attributes = /<ul id="imf-attributes">[\s\S]*?<\/ul>/.exec(structure)?.[0] ?? '';
    expect(attributes).toContain('0..*');
    expect(attributes).toContain('maximumQualifier');
    // Nested blank nodes (the terminal's qualified shape) are written out, never by label.
    const statements = /<table id="statements">[\s\S]*?<\/table>/.exec(structure)?.[0] ?? '';
    expect(statements).toContain('sh:qualifiedValueShape [sh:class');
    for (const any of [structure, await page(terminal.iri), await page(attribute.iri)]) {
      expect(any).not.toMatch(/\bn3-\d+\b|_:b?\d+|\bdf_\d+_\d+\b/);
    }
    // Signed in, the complete SHACL of the block; not for visitors, nor other families.
    expect(structure).toContain('?format=shacl">Complete IMF SHACL');
    const shacl = await reader.get(`${pathOf(block.iri)}?format=shacl`);
    expect(shacl.headers['content-type'], /<main[\s\S]*<\/main>/.exec(shacl.body)?.[0]).toMatch(
      /^text\/turtle/,
    );
    expect(shacl.body).toContain('sh:NodeShape');
    expect((await new Browser(service).get(`${pathOf(block.iri)}?format=shacl`)).statusCode).toBe(
      404,
    );
    expect((await reader.get(`${pathOf(picklist.iri)}?format=shacl`)).statusCode).toBe(400);
    // The attribute's page names what uses it.
    expect(await page(attribute.iri)).toContain('Types that have this attribute (2)');

    const symbol = await create(service, '/esl/engineeringSymbols', {
      name: uniqueName('Check valve'),
      dcIdentifier: `CV${Date.now()}`,
      width: 96,
      height: 48,
      shape:
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 48"><path d="M0 0 L96 48 L96 0 L0 48 Z"/></svg>',
      centerOfRotation: { x: 48, y: 24 },
      connectionPoints: [
        { id: 'inlet', x: 0, y: 24, direction: 180 },
        { id: 'outlet', x: 96, y: 24, direction: 0 },
      ],
    });
    const drawing = await page(symbol.iri);
    expect(drawing).toContain('<figure class="symbol-drawing" id="symbol-drawing">');
    // Points on the box's edge are drawn whole: the view reaches past the box.
    expect(drawing).toMatch(/viewBox="-\d+(\.\d+)? -\d+(\.\d+)? /);
    expect(drawing.match(/<g class="connection-point">/g)).toHaveLength(2);
    expect(drawing).toContain('<td>inlet</td><td>0</td><td>24</td><td>180°</td>');
  });

  it('lists the libraries that import a library, however many terms name it', async () => {
    const core = await createLibrary(service, { name: uniqueName('Core library') });
    // More terms than "Linked from" reads, so that they would crowd out the import.
    for (let batch = 0; batch < 21; batch += 1) {
      await Promise.all(
        Array.from({ length: 20 }, () =>
          create(service, '/rdl/terms/subclass', {
            name: uniqueName('Core term'),
            ontology: core,
            subClassOf: ['http://example.org/Thing'],
          }),
        ),
      );
    }
    const importer = await createLibrary(service, {
      name: uniqueName('Importing library'),
      upperOntologies: [core],
    });
    const reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'ivan'));
    const page = await reader.get(pathOf(core));
    expect(page.body).toContain('Libraries that import this one (1)');
    expect(page.body).toContain(`href="${pathOf(importer)}"`);
  });

  it('signs in with a token, shows Drafts, and signs out', async () => {
    const browser = new Browser(service);
    const signedIn = await browser.signInWithToken(
      await service.token(['Creator'], 'carol'),
      pathOf(draft),
    );
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe(pathOf(draft));
    const page = await browser.get(pathOf(draft));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('carol');
    expect(page.body).toContain('<span class="badge">Creator</span>');
    const home = await browser.get('/');
    expect(home.body).toContain(`href="${pathOf(draft)}"`);

    const out = await browser.post('/sign-out', {});
    expect(out.headers.location).toBe('/?done=signed_out');
    expect((await browser.get('/?done=signed_out')).body).toContain('You have been signed out.');
    expect((await browser.get(pathOf(draft))).statusCode).toBe(404);
  });

  it('sends a visitor to sign in on every page for people signed in, and tells a reader what each takes before reading the form', async () => {
    const visitor = new Browser(service);
    const reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'rita'));
    const pages: [method: 'GET' | 'POST', path: string, readerGets: number, takes?: string][] = [
      ['GET', '/authoring/mine', 200],
      ['GET', '/account/webhooks', 200],
      ['GET', '/account/notifications', 200],
      ['GET', '/account/imports', 403, 'Importing takes the Creator role'],
      ['POST', '/account/imports/new', 403, 'Importing takes the Creator role'],
      ['GET', '/authoring/new', 403, 'Writing Drafts takes the Creator role'],
      ['GET', '/review', 403, 'Reviewing takes the Reviewer'],
      [
        'GET',
        `/releases/new?library=${encodeURIComponent(approved)}`,
        403,
        'Releasing a library takes the Creator or Reviewer role',
      ],
    ];
    for (const [method, path, readerGets, takes] of pages) {
      const asked = method === 'GET' ? await visitor.get(path) : await visitor.post(path, {});
      expect(asked.statusCode, path).toBe(302);
      expect(asked.headers.location, path).toBe(`/sign-in?return_to=${encodeURIComponent(path)}`);
      // A form without its token: the declared viewers are checked first, so a
      // reader is told what importing takes rather than that the form expired.
      const answer =
        method === 'GET'
          ? await reader.get(path)
          : await reader.post(path, { authenticity_token: 'f'.repeat(64) });
      expect(answer.statusCode, path).toBe(readerGets);
      if (takes) {
        expect(answer.headers['content-type'], path).toContain('text/html');
        expect(answer.body, path).toContain(takes);
      }
    }
  });

  it('refuses bad tokens and forged forms with a page, and changes nothing', async () => {
    const browser = new Browser(service);
    await browser.get('/sign-in');
    const before = await service.db.selectFrom('sessions').select('id_hash').execute();
    const cases: [Record<string, string>, number, string][] = [
      [{ token: '' }, 422, 'Paste a bearer token.'],
      [{ token: 'not-a-token' }, 422, 'The token was not accepted'],
      [{ token: await service.token([], 'nobody') }, 422, 'none of refdata'],
      [{ token: await service.token(['Reader'], 'dave', -60) }, 422, 'expired'],
      [{ token: 'x', authenticity_token: 'f'.repeat(64) }, 422, 'The form has expired'],
      [{ token: 'a\u0000b' }, 400, 'control character'],
    ];
    for (const [fields, status, words] of cases) {
      const answer = await browser.post('/sign-in/token', fields);
      expect(answer.statusCode, JSON.stringify(fields)).toBe(status);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.body).toContain(words);
    }
    const after = await service.db.selectFrom('sessions').select('id_hash').execute();
    expect(after).toEqual(before);
    // A forged cookie is just a visitor.
    const forged = new Browser(service);
    forged.cookie = 'a'.repeat(64);
    expect((await forged.get(pathOf(draft))).statusCode).toBe(404);
  });

  it('ends a session made from a token when the token ends, and never returns to another site', async () => {
    const browser = new Browser(service);
    const started = Date.now();
    const answer = await browser.signInWithToken(
      await service.token(['Reader'], 'erin', 120),
      'https://evil.example/',
    );
    expect(answer.headers.location).toBe('/');
    const rows = await service.db
      .selectFrom('sessions')
      .select('expires_at')
      .where('user_id', '=', 'erin')
      .execute();
    expect(rows).toHaveLength(1);
    const expiresAt = Number(rows[0]?.expires_at);
    expect(expiresAt).toBeLessThanOrEqual(started + 125_000);
    expect(expiresAt).toBeGreaterThan(started + 100_000);
  });

  it('shows people by the name and username their provider gave, not by their subject', async () => {
    const subject = 'http://localhost:9500#1';
    await service.db
      .insertInto('people')
      .values({ subject, name: 'Ada Lovelace', username: 'ada', updated_at: Date.now() })
      .execute();
    const response = await service.app.inject({
      method: 'POST',
      url: '/ontologies/domains',
      headers: { authorization: `Bearer ${await service.token(['Creator'], subject)}` },
      payload: { changeJustification: 'x', name: uniqueName('Ada’s'), description: 'd' },
    });
    expect(response.statusCode).toBe(201);
    const browser = new Browser(service);
    await browser.signInWithToken(await service.token(['Reader'], 'grace'));
    const page = await browser.get(pathOf(response.json().iri));
    const history = /<ol id="history">(.*?)<\/ol>/s.exec(page.body)?.[1] ?? '';
    expect(history).toContain('<strong>Ada Lovelace (ada)</strong>');
    expect(history).not.toContain('localhost:9500');
    // Someone signed in with a pasted token is shown by their subject, which is their name.
    const own = await createLibrary(service, { name: uniqueName('Alice’s') });
    expect((await browser.get(pathOf(own))).body).toMatch(/created by <strong>alice<\/strong>/);
  });

  it('returns only to a path here, however the return_to is disguised, and never answers 500 for one', async () => {
    const token = await service.token(['Reader'], 'frank', 600);
    for (const disguised of [
      '/\t/evil.example',
      '/\\evil.example',
      '/.//evil.example',
      '//evil.example',
    ]) {
      const browser = new Browser(service);
      const posted = await browser.signInWithToken(token, disguised);
      expect(posted.statusCode, disguised).toBe(303);
      expect(posted.headers.location, disguised).toBe('/');
      // Signed in now: the sign-in page sends straight on, to the same safe place.
      const again = await browser.get(`/sign-in?return_to=${encodeURIComponent(disguised)}`);
      expect(again.statusCode, disguised).toBe(302);
      expect(again.headers.location, disguised).toBe('/');
    }
    // What a header cannot carry arrives percent-encoded, and the session's cookie with it.
    for (const [odd, location] of [
      ['/search?q=a\r\nb', '/search?q=ab'],
      ['/search?q=\u4e2d', '/search?q=%E4%B8%AD'],
    ] as const) {
      const browser = new Browser(service);
      const posted = await browser.signInWithToken(token, odd);
      expect(posted.statusCode, odd).toBe(303);
      expect(posted.headers.location, odd).toBe(location);
      expect(posted.headers['set-cookie'], odd).toBeDefined();
      expect((await browser.get('/sign-in?return_to=%2Fx%0D%0Ay')).headers.location).toBe('/xy');
    }
  });
});

describe('refdata web pages with anonymous reading off', () => {
  let service: Refdata;
  beforeAll(async () => {
    service = await startRefdata('sqlite', { REFDATA_ANONYMOUS_READ: 'false' });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('asks every visitor to sign in first, then lets them in', async () => {
    const library = await createLibrary(service);
    const path = library.replace(service.config.settings.refdata.iriBase, '');
    const browser = new Browser(service);
    const home = await browser.get('/');
    expect(home.statusCode).toBe(302);
    expect(home.headers.location).toBe('/sign-in?return_to=%2F');
    expect((await browser.get(path)).headers.location).toBe(
      `/sign-in?return_to=${encodeURIComponent(path)}`,
    );
    expect((await browser.get('/sign-in')).statusCode).toBe(200);
    await browser.signInWithToken(await service.token(['Reader']), path);
    expect((await browser.get(path)).statusCode).toBe(200);
  });
});
