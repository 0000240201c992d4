import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../harness.js';
import { fillAndSave, formControls } from './form-filler.js';
import { GLOSSARY_FAMILY_KEY, glossaryTerm } from './glossary-family.js';
import {
  approve,
  create,
  createLibrary,
  type Refdata,
  startRefdata,
  uniqueName,
} from './helpers.js';
import { Browser } from './page-client.js';

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><path d="M0 48L96 48"/></svg>';

describe.each(DATABASE_KINDS)('authoring pages (%s)', (kind) => {
  let service: Refdata;
  let creator: Browser;
  let reviewer: Browser;
  const iriBase = () => service.config.settings.refdata.iriBase;

  beforeAll(async () => {
    service = await startRefdata(kind, {}, { extraFamilies: [glossaryTerm] });
    creator = new Browser(service);
    await creator.signInWithToken(await service.token(['Creator'], 'carol'));
    reviewer = new Browser(service);
    await reviewer.signInWithToken(await service.token(['Reviewer'], 'rita'));
  });
  afterAll(() => service?.close());

  /** Saves a body through the family's form; the created resource as the API reads it. */
  const throughForm = async (familyKey: string, body: Record<string, unknown>) => {
    const action = `/authoring/new/${familyKey}`;
    const first = await creator.get(action);
    expect(first.statusCode).toBe(200);
    const saved = await fillAndSave(creator, action, first.body, body);
    if (saved.statusCode !== 303)
      throw new Error(
        `${familyKey}: ${saved.statusCode} ${saved.body.slice(saved.body.indexOf('<main'), saved.body.indexOf('<main') + 1500)}`,
      );
    expect(saved.headers.location).toMatch(/\?done=created$/);
    const iri = `${iriBase()}${String(saved.headers.location).replace(/\?.*$/, '')}`;
    const family = (
      await service.call('GET', `/search/search-index?q=${encodeURIComponent(String(body.name))}`, {
        roles: ['Reader'],
      })
    ).json();
    expect(family.hits.map((hit: { iri: string }) => hit.iri)).toContain(iri);
    return iri;
  };

  it('creates a valid resource of every family from its form, with no family-specific form code', async () => {
    const justification = {
      changeJustification: 'Written in the form',
      description: 'Through the page',
    };
    const ontology = await throughForm('library', {
      ...justification,
      name: uniqueName('Form library'),
      upperOntologies: ['https://example.org/upper'],
      backupFrequency: 'weekly',
    });
    const dimension = await throughForm('dimension', {
      ...justification,
      name: uniqueName('Length'),
      ontology,
      dimensionCode: 'L',
    });
    await throughForm('unit', {
      ...justification,
      name: uniqueName('Metre'),
      ontology,
      dimensionRef: dimension,
      measurementSystem: 'SI',
      symbol: 'm',
    });
    const picklist = await throughForm('picklist', {
      ...justification,
      name: uniqueName('Colours'),
      ontology,
      subClassOf: 'https://example.org/Colour',
      picklistValues: [
        {
          name: 'Red',
          description: 'Like blood',
          translations: [{ language: 'nb', name: 'Rød' }],
        },
        { name: 'Green', description: 'Like grass' },
        { name: 'Blue', description: 'Like the sky' },
      ],
    });
    const values = (
      await service.call('GET', `/cfihos/picklist?iri=${encodeURIComponent(picklist)}`)
    ).json().picklistValues;
    expect(values.map((value: { name: string }) => value.name)).toEqual(['Red', 'Green', 'Blue']);
    // A list inside a list: a value's translations, added through the form's rows.
    expect(values[0].translations).toEqual([{ language: 'nb', name: 'Rød' }]);
    await throughForm('picklist-value', { ...justification, name: uniqueName('Yellow'), picklist });
    const property = await throughForm('property', {
      ...justification,
      name: uniqueName('Colour'),
      ontology,
      types: ['controlledText'],
      range: picklist,
    });
    const superclass = await throughForm('class', {
      ...justification,
      name: uniqueName('Equipment'),
      ontology,
      subClassOf: ['https://example.org/Thing'],
    });
    await throughForm('class', {
      ...justification,
      name: uniqueName('Pump'),
      ontology,
      subClassOf: [superclass, 'https://example.org/Machine'],
      translations: [
        { language: 'nb', name: 'Pumpe', description: 'Flytter væske' },
        { language: 'pt-BR', name: 'Bomba' },
      ],
      synonyms: [{ language: 'de', label: 'Kreiselpumpe' }],
      relatedTerms: [
        { relationType: 'closeMatch', targetLibrary: 'Other', targetIdentifier: 'P-1' },
      ],
      definitionSources: [{ sourceIri: 'https://example.org/source' }],
    });
    await throughForm('cfihos-entity', {
      ...justification,
      name: uniqueName('Tag'),
      ontology,
      entityType: 'tag',
      isAbstract: true,
      propertyReferences: [{ propertyUri: property, minCardinality: 0, maxCardinality: 1 }],
    });
    const attribute = await throughForm('imf-attribute', {
      ...justification,
      name: uniqueName('Flow'),
      ontology,
      predicate: 'https://example.org/flow',
      rangeQualifier: 'http://ns.imfid.org/imf#maximumQualifier',
    });
    const terminal = await throughForm('imf-terminal', {
      ...justification,
      name: uniqueName('Inlet'),
      ontology,
      aspect: 'http://ns.imfid.org/imf#productAspect',
      direction: 'input',
      referenceTerms: ['https://example.org/inlet'],
      attributeReferences: [{ entityUri: attribute, minCardinality: 1, maxCardinality: 1 }],
    });
    await throughForm('imf-block', {
      ...justification,
      name: uniqueName('Pump block'),
      ontology,
      aspect: 'http://ns.imfid.org/imf#functionAspect',
      referenceTerms: [],
      attributeReferences: [],
      terminalReferences: [{ entityUri: terminal, minCardinality: 1 }],
      hasPartBlockReferences: [],
    });
    await throughForm('symbol', {
      ...justification,
      name: uniqueName('Line'),
      dcIdentifier: `LINE-${Date.now()}`,
      width: 96,
      height: 96,
      shape: SVG,
      centerOfRotation: { x: 48, y: 48 },
      connectionPoints: [
        { id: 'a', x: 0, y: 48, direction: 180 },
        { id: 'b', x: 96, y: 48, direction: 0 },
      ],
    });
    // A family defined only in a test gets its form the same way.
    const glossaryPage = await creator.get(`/authoring/new/${GLOSSARY_FAMILY_KEY}`);
    expect(formControls(glossaryPage.body).has('/abbreviation')).toBe(true);
    expect(glossaryPage.body).toMatch(/<option value="deprecated">deprecated<\/option>/);
    await throughForm(GLOSSARY_FAMILY_KEY, {
      ...justification,
      name: uniqueName('Process flow diagram'),
      ontology,
      abbreviation: 'PFD',
      usage: 'preferred',
    });
  });

  it('never labels a field optional that another makes required, and names the superclass alike on every family', async () => {
    const property = (await creator.get('/authoring/new/property')).body;
    const range = /<label for="f-range">[\s\S]*?<\/label>/.exec(property)?.[0] ?? '';
    expect(range).toContain(
      '(required for a number (its dimension) or controlled text (its picklist))',
    );
    expect(range).not.toContain('(optional)');
    for (const family of ['cfihos-entity', 'picklist']) {
      const form = (await creator.get(`/authoring/new/${family}`)).body;
      expect(form, family).toMatch(/<label for="f-(superEntity|subClassOf)">Superclass/);
      expect(form, family).not.toMatch(/Super entity|Kind of/);
    }
  });

  it('refuses a form with the API rules beside each field, keeping what was typed', async () => {
    const ontology = await createLibrary(service);
    const page = await creator.get(`/authoring/new/class?ontology=${encodeURIComponent(ontology)}`);
    const fields = Object.fromEntries(formControls(page.body));
    const refused = await creator.post('/authoring/new/class', {
      ...fields,
      '/name': 'Valve  ',
      '/description': '',
      'pick:/subClassOf/0': 'not an iri and no such class',
      '/changeJustification': 'Because',
      _action: 'save',
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('nothing is called “not an iri and no such class”');
    expect(refused.body).toContain('value="Valve  "');
    expect(refused.body).toContain('value="not an iri and no such class"');
    expect(refused.body).toMatch(/id="error-summary"/);

    const missing = await creator.post('/authoring/new/class', {
      ...fields,
      'pick:/subClassOf/0': 'https://example.org/Thing',
      _action: 'save',
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.body).toMatch(/<p class="field-error" id="f-name-error">Name is required<\/p>/);
    expect(missing.body).toMatch(/id="f-changeJustification-error">Why this change is required/);
    expect(missing.body).toMatch(/id="f-name"[^>]*aria-invalid="true"/);
    // No superclass, a count that is not a number: said in words, not in schema terms.
    const emptied = await creator.post('/authoring/new/class', {
      ...fields,
      '/subClassOf/0': '',
      'pick:/subClassOf/0': '',
      '/name': 'Valve',
      '/description': 'A valve',
      '/changeJustification': 'Because',
      _action: 'save',
    });
    expect(emptied.statusCode).toBe(422);
    expect(emptied.body).toContain('Superclasses needs at least one');
    // A translation's language that is no BCP 47 tag: said beside it, the row kept as typed.
    const withRow = await creator.post('/authoring/new/class', {
      ...fields,
      _action: 'add:/translations',
    });
    expect(withRow.statusCode).toBe(200);
    const badTag = await creator.post('/authoring/new/class', {
      ...Object.fromEntries(formControls(withRow.body)),
      '/name': uniqueName('Valve'),
      '/description': 'A valve',
      'pick:/subClassOf/0': 'https://example.org/Thing',
      '/changeJustification': 'Because',
      '/translations/0/language': 'en_US',
      '/translations/0/name': 'Ventil',
      _action: 'save',
    });
    expect(badTag.statusCode).toBe(422);
    expect(badTag.body).toContain('must be a valid BCP 47 language tag');
    expect(badTag.body).toContain('value="en_US"');
    expect(badTag.body).toContain('value="Ventil"');
    const symbolPage = await creator.get('/authoring/new/symbol');
    const badNumber = await creator.post('/authoring/new/symbol', {
      ...Object.fromEntries(formControls(symbolPage.body)),
      '/width': '9,5',
      _action: 'save',
    });
    expect(badNumber.body).toContain('Width must be a whole number');
    expect(badNumber.body).toContain('value="9,5"');

    const wrongFamily = await creator.post('/authoring/new/class', {
      ...fields,
      '/name': uniqueName('Valve'),
      '/description': 'A valve',
      '/changeJustification': 'Because',
      'pick:/subClassOf/0': ontology,
      _action: 'save',
    });
    expect(wrongFamily.statusCode).toBe(422);
    expect(wrongFamily.body).toMatch(
      /Superclasses › 1 must be the IRI of a class, not of a library/,
    );
    const count = await service.db
      .selectFrom('resources')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('name', 'like', 'Valve%')
      .executeTakeFirst();
    expect(Number(count?.n)).toBe(0);
  });

  it('settles a reference by name, and asks which one when several match', async () => {
    const first = await createLibrary(service, { name: uniqueName('Twin') });
    const name = (
      await service.call('GET', `/ontologies/domains?iri=${encodeURIComponent(first)}`)
    ).json().name as string;
    const page = await creator.get('/authoring/new/dimension');
    const fields = Object.fromEntries(formControls(page.body));
    const base = {
      ...fields,
      '/name': uniqueName('Mass'),
      '/description': 'How heavy',
      '/dimensionCode': 'M',
      '/changeJustification': 'Needed',
    };
    const byName = await creator.post('/authoring/new/dimension', {
      ...base,
      'pick:/ontology': name.toUpperCase(),
      _action: 'save',
    });
    expect(byName.statusCode).toBe(303);

    const second = await create(service, '/ontologies/domains', {
      name: `${name} `,
      path: `twin-${Date.now()}`,
    }).catch(() => undefined);
    expect(second).toBeUndefined(); // names are unique among libraries: use classes instead
    const ontology = await createLibrary(service);
    const otherOntology = await createLibrary(service);
    const className = uniqueName('Twin class');
    const a = await create(service, '/rdl/terms/subclass', {
      name: className,
      ontology,
      subClassOf: ['https://example.org/A'],
    });
    const b = await create(service, '/rdl/terms/subclass', {
      name: className,
      ontology: otherOntology,
      subClassOf: ['https://example.org/B'],
    });
    const classPage = await creator.get(
      `/authoring/new/class?ontology=${encodeURIComponent(ontology)}`,
    );
    const classFields = Object.fromEntries(formControls(classPage.body));
    const ambiguous = await creator.post('/authoring/new/class', {
      ...classFields,
      '/name': uniqueName('Child'),
      '/description': 'A child',
      '/changeJustification': 'Needed',
      'pick:/subClassOf/0': className,
      _action: 'save',
    });
    expect(ambiguous.statusCode).toBe(422);
    expect(ambiguous.body).toContain(`2 resources are called “${className}”: choose one`);
    expect(ambiguous.body).toContain(`name="choose:/subClassOf/0" value="${a.iri}"`);
    expect(ambiguous.body).toContain(`name="choose:/subClassOf/0" value="${b.iri}"`);
    const chosen = await creator.post('/authoring/new/class', {
      ...Object.fromEntries(formControls(ambiguous.body)),
      'choose:/subClassOf/0': b.iri,
      _action: 'save',
    });
    expect(chosen.statusCode).toBe(303);
    const child = (await creator.get(String(chosen.headers.location))).body;
    expect(child).toContain(b.iri);
  });

  it('adds, moves and removes rows of a list without saving', async () => {
    const ontology = await createLibrary(service);
    const page = await creator.get(
      `/authoring/new/picklist?ontology=${encodeURIComponent(ontology)}`,
    );
    let fields: Record<string, string> = Object.fromEntries(formControls(page.body));
    for (const _ of [1, 2, 3]) {
      const added = await creator.post('/authoring/new/picklist', {
        ...fields,
        _action: 'add:/picklistValues',
      });
      expect(added.statusCode).toBe(200);
      fields = Object.fromEntries(formControls(added.body));
    }
    Object.assign(fields, {
      '/picklistValues/0/name': 'One',
      '/picklistValues/1/name': 'Two',
      '/picklistValues/2/name': 'Three',
    });
    const moved = await creator.post('/authoring/new/picklist', {
      ...fields,
      _action: 'up:/picklistValues/2',
    });
    fields = Object.fromEntries(formControls(moved.body));
    expect([0, 1, 2].map((index) => fields[`/picklistValues/${index}/name`])).toEqual([
      'One',
      'Three',
      'Two',
    ]);
    const removed = await creator.post('/authoring/new/picklist', {
      ...fields,
      _action: 'remove:/picklistValues/0',
    });
    fields = Object.fromEntries(formControls(removed.body));
    expect([0, 1].map((index) => fields[`/picklistValues/${index}/name`])).toEqual([
      'Three',
      'Two',
    ]);
    expect(fields['/picklistValues/2/name']).toBeUndefined();
    expect(
      await service.db
        .selectFrom('resources')
        .select('id')
        .where('library_key', '=', ontology)
        .execute(),
    ).toEqual([]);
  });

  it('keeps both versions when a Draft changed since its form was opened', async () => {
    const ontology = await createLibrary(service);
    const draft = await create(service, '/rdl/terms/subclass', {
      name: uniqueName('Shared'),
      ontology,
      subClassOf: ['https://example.org/A'],
    });
    // The author in a second browser: only she changes her Draft.
    const other = new Browser(service);
    await other.signInWithToken(await service.token(['Creator'], 'alice'));
    const address = `/authoring/edit?iri=${encodeURIComponent(draft.iri)}`;
    const mine = Object.fromEntries(formControls((await creator.get(address)).body));
    const theirs = Object.fromEntries(formControls((await other.get(address)).body));
    const first = await other.post(address, {
      ...theirs,
      '/description': 'Their words',
      '/changeJustification': 'Theirs',
      _action: 'save',
    });
    expect(first.statusCode).toBe(303);
    const second = await creator.post(address, {
      ...mine,
      '/description': 'My words',
      '/changeJustification': 'Mine',
      _action: 'save',
    });
    expect(second.statusCode).toBe(409);
    expect(second.body).toContain('changed while you were editing');
    expect(second.body).toContain('Their words');
    expect(second.body).toContain('My words');
    const stored = (
      await service.call('GET', `/rdl/terms/subclass?iri=${encodeURIComponent(draft.iri)}`)
    ).json();
    expect(stored.description).toBe('Their words');
    // Picking up from there: the form holds my words, based on their version.
    const draftField = /name="_draft" value="([^"]*)"/.exec(second.body)?.[1] ?? '';
    const resumed = await creator.post(`${address}&resume=1`, {
      _draft: draftField.replaceAll('&quot;', '"').replaceAll('&amp;', '&'),
    });
    expect(resumed.statusCode).toBe(200);
    expect(resumed.body).toContain('My words');
    expect(formControls(resumed.body).get('_version')).toBe(String(stored.version));
  });

  it('submits with the Drafts it names, and a Reviewer rejects and approves from the queue', async () => {
    const ontology = await createLibrary(service);
    await approve(service, ontology);
    // Carol's Drafts: only their author submits them.
    const parent = await create(
      service,
      '/rdl/terms/subclass',
      { name: uniqueName('Parent'), ontology, subClassOf: ['https://example.org/A'] },
      'carol',
    );
    const child = await create(
      service,
      '/rdl/terms/subclass',
      { name: uniqueName('Child'), ontology, subClassOf: [parent.iri] },
      'carol',
    );
    const confirm = await creator.get(`/authoring/submit?iri=${encodeURIComponent(child.iri)}`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`name="also" value="${parent.iri}" checked`);
    // A Draft going along that the page did not show as it is now: looked at again.
    const stale = await creator.post(`/authoring/submit?iri=${encodeURIComponent(child.iri)}`, {
      _version: String(formControls(confirm.body).get('_version')),
      _versions: JSON.stringify({ [parent.iri]: 0 }),
      also: parent.iri,
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain(`${parent.name} changed since this page was opened`);
    const submitted = await creator.post(`/authoring/submit?iri=${encodeURIComponent(child.iri)}`, {
      _version: String(formControls(confirm.body).get('_version')),
      _versions: String(formControls(confirm.body).get('_versions')),
      also: parent.iri,
    });
    expect(submitted.statusCode).toBe(303);
    for (const iri of [parent.iri, child.iri]) {
      expect(
        (await service.call('GET', `/rdl/terms/subclass?iri=${encodeURIComponent(iri)}`)).json()
          .status,
      ).toBe('Submitted');
    }
    expect((await creator.get('/review')).statusCode).toBe(403);
    // Submitted together: one queue item, a package holding both.
    const queue = await reviewer.get('/review');
    const packageLink = /href="(\/review\/packages\/\d+)">([^<]*)</.exec(queue.body);
    expect(packageLink?.[2]).toBe(`${child.name} and 1 more`);
    expect(queue.body).toContain('2 waiting in one item');
    const packagePage = await reviewer.get(packageLink?.[1] ?? '');
    expect(packagePage.statusCode).toBe(200);
    for (const name of [parent.name, child.name]) expect(packagePage.body).toContain(name);
    const review = await reviewer.get(`/review/resource?iri=${encodeURIComponent(child.iri)}`);
    expect(review.body).toContain(parent.name);
    const version = /name="_version" value="(\d+)"/.exec(review.body)?.[1] ?? '';
    const blank = await reviewer.post(`/review/resource?iri=${encodeURIComponent(child.iri)}`, {
      _version: version,
      decision: 'reject',
      justification: '  ',
    });
    expect(blank.statusCode).toBe(422);
    expect(blank.body).toContain('Justification is required');
    const rejected = await reviewer.post(`/review/resource?iri=${encodeURIComponent(child.iri)}`, {
      _version: version,
      decision: 'reject',
      justification: 'Too vague',
    });
    expect(rejected.statusCode).toBe(303);
    const approved = await reviewer.post(`/review/resource?iri=${encodeURIComponent(parent.iri)}`, {
      _version:
        /name="_version" value="(\d+)"/.exec(
          (await reviewer.get(`/review/resource?iri=${encodeURIComponent(parent.iri)}`)).body,
        )?.[1] ?? '',
      decision: 'approve',
      justification: 'Fine',
    });
    expect(approved.statusCode).toBe(303);
    expect(
      (await service.call('GET', `/rdl/terms/subclass?iri=${encodeURIComponent(child.iri)}`)).json()
        .status,
    ).toBe('Rejected');
    expect(
      (
        await service.call('GET', `/rdl/terms/subclass?iri=${encodeURIComponent(parent.iri)}`)
      ).json().status,
    ).toBe('Approved');
    // Her own page lists what became of her work.
    const mine = await creator.get('/authoring/mine');
    expect(mine.body).toMatch(/id="status-Rejected"/);
    expect(mine.body.slice(mine.body.indexOf('id="status-Rejected"'))).toContain(
      child.name as string,
    );
  });

  it("shows a Rejected resource's reason at the top of its page, escaped", async () => {
    const ontology = await createLibrary(service);
    const as = async (
      subject: string,
      roles: ('Creator' | 'Reviewer')[],
      method: 'POST' | 'PUT',
      url: string,
      payload?: object,
    ) =>
      service.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${await service.token(roles, subject)}` },
        ...(payload ? { payload } : {}),
      });
    const made = await as('carol', ['Creator'], 'POST', '/rdl/terms/subclass', {
      changeJustification: 'New',
      name: uniqueName('Rejected pump'),
      description: 'Moves fluids, roughly',
      ontology,
      subClassOf: ['https://example.org/Equipment'],
    });
    const iri = made.json().iri as string;
    const query = `iri=${encodeURIComponent(iri)}`;
    expect((await as('carol', ['Creator'], 'PUT', `/status/submit?${query}`)).statusCode).toBe(204);
    expect(
      (
        await as('rita', ['Reviewer'], 'PUT', `/status/reject?${query}`, {
          justification: 'Too vague: say <how> it moves them',
        })
      ).statusCode,
    ).toBe(204);
    const path = new URL(iri).pathname;
    const page = await creator.get(path);
    expect(page.body).toMatch(
      /id="rejection">Rejected by rita .*: Too vague: say &lt;how&gt; it moves them</,
    );
  });

  it('answers what a visitor, a Reader and a malformed request may not do', async () => {
    const visitor = new Browser(service);
    const away = await visitor.get('/authoring/new/class');
    expect(away.statusCode).toBe(302);
    const reader = new Browser(service);
    await reader.signInWithToken(await service.token(['Reader'], 'rob'));
    expect((await reader.get('/authoring/new/class')).statusCode).toBe(403);
    expect((await creator.get('/authoring/new/no-such-family')).statusCode).toBe(404);
    expect(
      (await creator.get(`/authoring/edit?iri=${encodeURIComponent(`${iriBase()}/ontology/none`)}`))
        .statusCode,
    ).toBe(404);
    // The suggestions behind the reference fields: signed-in people only, words required.
    const named = await createLibrary(service, { name: uniqueName('Suggested library') });
    const suggested = await creator.get(
      `/authoring/pick?families=library,no-such-family&q=${encodeURIComponent('Suggested library')}`,
      'application/json',
    );
    expect(suggested.statusCode).toBe(200);
    expect(suggested.json().results.map((result: { iri: string }) => result.iri)).toContain(named);
    expect(suggested.json().results[0]).toMatchObject({
      family: 'library',
      familyLabel: 'library',
    });
    expect(
      (await visitor.get('/authoring/pick?families=library&q=x', 'application/json')).statusCode,
    ).toBe(401);
    expect(
      (await creator.get('/authoring/pick?families=library', 'application/json')).statusCode,
    ).toBe(400);
    expect(
      (
        await creator.get(
          `/authoring/pick?families=library&q=${'x'.repeat(201)}`,
          'application/json',
        )
      ).statusCode,
    ).toBe(400);
    const noToken = await creator.post('/authoring/new/class', {
      authenticity_token: '',
      '/name': 'X',
    });
    expect(noToken.statusCode).toBe(422);
    const nul = await creator.post('/authoring/new/class', { '/name': 'X\u0000' });
    expect(nul.statusCode).toBe(400);
    // Addresses with a missing, unknown, oversized or wrong-state value.
    expect((await creator.get('/authoring/edit')).statusCode).toBe(400);
    expect((await creator.get(`/authoring/new?ontology=${'x'.repeat(2049)}`)).statusCode).toBe(400);
    expect(
      (
        await creator.get(
          `/authoring/submit?iri=${encodeURIComponent(`${iriBase()}/ontology/none`)}`,
        )
      ).statusCode,
    ).toBe(404);
    expect((await reviewer.get(`/review?family=${'x'.repeat(101)}`)).statusCode).toBe(400);
    const stillDraft = await createLibrary(service);
    expect(
      (await reviewer.get(`/review/resource?iri=${encodeURIComponent(stillDraft)}`)).statusCode,
    ).toBe(409);
    const waiting = await createLibrary(service);
    await service.call('PUT', `/status/submit?iri=${encodeURIComponent(waiting)}`);
    const reviewPage = await reviewer.get(`/review/resource?iri=${encodeURIComponent(waiting)}`);
    const version = /name="_version" value="(\d+)"/.exec(reviewPage.body)?.[1] ?? '';
    const bogus = await reviewer.post(`/review/resource?iri=${encodeURIComponent(waiting)}`, {
      _version: version,
      decision: 'maybe',
      justification: 'Hmm',
    });
    expect(bogus.statusCode).toBe(400);
    const long = await reviewer.post(`/review/resource?iri=${encodeURIComponent(waiting)}`, {
      _version: version,
      decision: 'approve',
      justification: 'x'.repeat(2001),
    });
    expect(long.statusCode).toBe(422);
    const stale = await reviewer.post(`/review/resource?iri=${encodeURIComponent(waiting)}`, {
      _version: '1',
      decision: 'approve',
      justification: 'Fine',
    });
    expect(stale.statusCode).toBe(409);
    expect(
      (await service.call('GET', `/ontologies/domains?iri=${encodeURIComponent(waiting)}`)).json()
        .status,
    ).toBe('Submitted');
    const approvedLibrary = await createLibrary(service);
    await approve(service, approvedLibrary);
    expect(
      (await creator.get(`/authoring/edit?iri=${encodeURIComponent(approvedLibrary)}`)).statusCode,
    ).toBe(409);
  });
});
