/**
 * The quality report (docs/releases.md): a library built to break each rule
 * once, where the report finds each, and one built to break none, where it
 * finds nothing; the report as a SHACL validation report; a release refused
 * while errors remain. Rules the API never lets a resource break (every body
 * has a name, a description and its library) are broken by changing stored
 * rows, as data loaded around the API or stored before a rule would be.
 */
import { Parser } from 'n3';
import { beforeAll, describe, expect, it } from 'vitest';
import { typesGrammarFindings, validLanguageTag } from '../../src/refdata/quality/report.js';
import { DATABASE_KINDS } from '../harness.js';
import {
  approve,
  create,
  createLibrary,
  iriQuery,
  type Refdata,
  refdataForTests,
  uniqueName,
} from './helpers.js';

const IMF = 'http://ns.imfid.org/imf#';
const SH = 'http://www.w3.org/ns/shacl#';

interface JsonFinding {
  severity: string;
  rule: string;
  resource: string;
  message: string;
  fix: string | null;
}

describe('language tags (pca-language-tag)', () => {
  // Every literal refdata writes today is tagged en; the rule guards tags that come with
  // translations, so it is held to BCP 47 here, tag by tag.
  it('takes well-formed BCP 47 tags and nothing else', () => {
    for (const tag of ['en', 'nb', 'pt-BR', 'zh-Hant-TW', 'de-CH-1996', 'es-419'])
      expect(validLanguageTag(tag), tag).toBe(true);
    for (const tag of ['en_US', 'e', '123', 'en-', 'english-language-x-', 'pt--BR', ''])
      expect(validLanguageTag(tag), tag).toBe(false);
  });
});

describe.each(DATABASE_KINDS)('quality reports (%s)', (kind) => {
  const service: Refdata = refdataForTests(kind);
  let clean: string;
  let broken: string;
  /** What the broken library holds that breaks a rule, by what it breaks. */
  const iris = {} as Record<
    | 'imports'
    | 'label'
    | 'definition'
    | 'definedBy'
    | 'iri'
    | 'draftPicklist'
    | 'unpublished'
    | 'deprecated'
    | 'parent'
    | 'block',
    string
  >;

  const report = async (query: string, accept = 'application/json') => {
    const answer = await service.call('GET', `/quality?${query}`, { headers: { accept } });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer;
  };
  const libraryQuery = (library: string, view?: string) =>
    new URLSearchParams({ library, ...(view ? { view } : {}) }).toString();
  /** Changes a stored body as data loaded around the API would have it. */
  const storeBody = async (iri: string, change: (body: Record<string, unknown>) => void) => {
    const row = await service.db
      .selectFrom('resources')
      .select('body')
      .where('iri', '=', iri)
      .executeTakeFirstOrThrow();
    const body = JSON.parse(row.body) as Record<string, unknown>;
    change(body);
    await service.db
      .updateTable('resources')
      .set({ body: JSON.stringify(body) })
      .where('iri', '=', iri)
      .execute();
  };
  const pumpClass = (ontology: string, name: string, extra: Record<string, unknown> = {}) =>
    create(service, '/rdl/terms/subclass', {
      name: uniqueName(name),
      ontology,
      subClassOf: ['http://x.example/Equipment'],
      ...extra,
    });

  beforeAll(async () => {
    // A library that breaks nothing: everything Approved, named, defined, imported.
    const upper = await createLibrary(service, { name: uniqueName('Upper') });
    await approve(service, upper);
    const upperClass = (await pumpClass(upper, 'Rotating equipment')).iri;
    await approve(service, upperClass);
    clean = await createLibrary(service, {
      name: uniqueName('Clean'),
      upperOntologies: [upper],
    });
    await approve(service, clean);
    const picklist = await create(service, '/cfihos/picklist', {
      name: uniqueName('Colours'),
      ontology: clean,
      subClassOf: 'https://example.org/Colour',
      picklistValues: [{ name: 'Red', description: 'The colour of blood' }],
    });
    await approve(service, picklist.iri);
    const property = await create(service, '/general/property', {
      name: uniqueName('Colour'),
      ontology: clean,
      types: ['controlledText'],
      range: picklist.iri,
    });
    await approve(service, property.iri);
    await approve(service, (await pumpClass(clean, 'Pump', { subClassOf: [upperClass] })).iri);
    const attribute = await create(service, '/imf/attributetypes', {
      name: uniqueName('Pressure'),
      ontology: clean,
      predicate: 'http://example.org/pressure',
    });
    await approve(service, attribute.iri);
    const terminal = await create(service, '/imf/terminaltypes', {
      name: uniqueName('Inlet'),
      ontology: clean,
      aspect: `${IMF}productAspect`,
      direction: 'input',
      referenceTerms: [],
      attributeReferences: [{ entityUri: attribute.iri, minCardinality: 0, maxCardinality: 1 }],
    });
    await approve(service, terminal.iri);

    // A library that breaks each rule once. It is a Draft (library-approved): it
    // is approved while its terms are, since an approval waits for everything
    // named, and set back to Draft in storage at the end, as data from before
    // that rule would be.
    broken = await createLibrary(service, { name: uniqueName('Broken') });
    await approve(service, broken);
    const other = await createLibrary(service, { name: uniqueName('Elsewhere') });
    await approve(service, other);
    const elsewhere = (await pumpClass(other, 'Elsewhere class')).iri;
    await approve(service, elsewhere);
    // pca-imports: a term names a class of a library the broken one does not import.
    iris.imports = (await pumpClass(broken, 'Importer', { subClassOf: [elsewhere] })).iri;
    // Rules the API keeps: changed in storage.
    iris.label = (await pumpClass(broken, 'Unlabelled')).iri;
    await storeBody(iris.label, (body) => {
      body.name = '';
    });
    iris.definition = (await pumpClass(broken, 'Undefined')).iri;
    await storeBody(iris.definition, (body) => {
      delete body.description;
    });
    iris.definedBy = (await pumpClass(broken, 'Homeless')).iri;
    await storeBody(iris.definedBy, (body) => {
      delete body.ontology;
    });
    const hashed = (await pumpClass(broken, 'Hashed')).iri;
    iris.iri = `${broken}/terms#hashed`;
    await service.db
      .updateTable('resources')
      .set({ iri: iris.iri })
      .where('iri', '=', hashed)
      .execute();
    // reference-unpublished: an Approved property whose picklist is a Draft.
    const draftPicklist = await create(service, '/cfihos/picklist', {
      name: uniqueName('Draft list'),
      ontology: broken,
      subClassOf: 'https://example.org/List',
      picklistValues: [{ name: 'One', description: 'The first' }],
    });
    iris.draftPicklist = draftPicklist.iri;
    iris.unpublished = (
      await create(service, '/general/property', {
        name: uniqueName('Listed'),
        ontology: broken,
        types: ['controlledText'],
        range: draftPicklist.iri,
      })
    ).iri;
    // Approval would wait for the picklist: approved in storage, as before that rule.
    await service.db
      .updateTable('resources')
      .set({ status: 'Approved' })
      .where('iri', '=', iris.unpublished)
      .execute();
    // A replaced picklist: its values follow it into deprecation and name it, which
    // is no finding (they cannot change, and nothing needs mending).
    const oldList = await create(service, '/cfihos/picklist', {
      name: uniqueName('Old list'),
      ontology: broken,
      subClassOf: 'https://example.org/List',
      picklistValues: [{ name: 'Kept', description: 'A value of the old list' }],
    });
    await approve(service, oldList.iri);
    await approve(
      service,
      (
        await create(service, '/cfihos/picklist', {
          name: uniqueName('New list'),
          ontology: broken,
          subClassOf: 'https://example.org/List',
          picklistValues: [{ name: 'Kept', description: 'A value of the new list' }],
          replaces: oldList.iri,
        })
      ).iri,
    );
    // A deprecated class: replaced by an approved one.
    const old = (await pumpClass(broken, 'Old pump')).iri;
    await approve(service, old);
    await approve(service, (await pumpClass(broken, 'New pump', { replaces: old })).iri);
    iris.deprecated = old;
    // parent-deprecated: a Draft class under the deprecated one.
    iris.parent = (await pumpClass(broken, 'Child pump', { subClassOf: [old] })).iri;
    const oldTerminal = await create(service, '/imf/terminaltypes', {
      name: uniqueName('Old inlet'),
      ontology: broken,
      aspect: `${IMF}productAspect`,
      direction: 'input',
      referenceTerms: [],
      attributeReferences: [],
    });
    await approve(service, oldTerminal.iri);
    await approve(
      service,
      (
        await create(service, '/imf/terminaltypes', {
          name: uniqueName('New inlet'),
          ontology: broken,
          aspect: `${IMF}productAspect`,
          direction: 'input',
          referenceTerms: [],
          attributeReferences: [],
          replaces: oldTerminal.iri,
        })
      ).iri,
    );
    // reference-deprecated: a Draft block naming a deprecated terminal.
    iris.block = (
      await create(service, '/imf/blocktypes', {
        name: uniqueName('Block'),
        ontology: broken,
        aspect: `${IMF}productAspect`,
        referenceTerms: [],
        attributeReferences: [],
        terminalReferences: [{ entityUri: oldTerminal.iri, minCardinality: 1, maxCardinality: 1 }],
        hasPartBlockReferences: [],
      })
    ).iri;
    await service.db
      .updateTable('resources')
      .set({ status: 'Draft' })
      .where('iri', '=', broken)
      .execute();
  });

  it('finds nothing in a library that breaks no rule, as JSON and as a SHACL report', async () => {
    const json = (await report(libraryQuery(clean))).json();
    expect(json.findings).toEqual([]);
    expect(json).toMatchObject({ scope: 'release', conforms: true, errors: 0, warnings: 0 });
    expect((await report(libraryQuery(clean, 'working'))).json().findings).toEqual([]);
    const rdf = await report(libraryQuery(clean), 'text/turtle');
    const quads = new Parser({ format: 'Turtle' }).parse(rdf.body);
    expect(quads.find((q) => q.predicate.value === `${SH}conforms`)?.object.value).toBe('true');
    expect(quads.filter((q) => q.predicate.value === `${SH}result`)).toEqual([]);
  });

  it('finds each rule broken once, with the resource, a sentence and where to mend it', async () => {
    const json = (await report(libraryQuery(broken, 'working'))).json();
    const found = (json.findings as JsonFinding[]).map(
      (f) => `${f.severity} ${f.rule} ${f.resource}`,
    );
    const expected = [
      `error pca-pref-label ${iris.label}`,
      `error pca-definition ${iris.definition}`,
      `error pca-defined-by ${iris.definedBy}`,
      `error pca-iri ${iris.iri}`,
      `error reference-unpublished ${iris.unpublished}`,
      `warning parent-deprecated ${iris.parent}`,
      `warning reference-deprecated ${iris.block}`,
      `warning pca-imports ${broken}`,
    ];
    expect(found.sort()).toEqual(expected.sort());
    for (const finding of json.findings as JsonFinding[]) {
      expect(finding.message.length).toBeGreaterThan(20);
    }
    const unpublished = (json.findings as JsonFinding[]).find(
      (f) => f.rule === 'reference-unpublished',
    );
    expect(unpublished?.message).toContain(iris.draftPicklist);
    expect(unpublished?.message).toContain('Draft');
    const parent = (json.findings as JsonFinding[]).find((f) => f.rule === 'parent-deprecated');
    const fix = new URL(parent?.fix as string);
    expect(`${fix.pathname}${fix.search}`).toBe(
      `/authoring/edit?${new URLSearchParams({ iri: iris.parent })}`,
    );
    // A release candidate: the published view, and the library is a Draft.
    const candidate = (await report(libraryQuery(broken))).json();
    const rules = new Set((candidate.findings as JsonFinding[]).map((f) => f.rule));
    expect(rules.has('library-approved')).toBe(true);
    expect(rules.has('reference-unpublished')).toBe(true);
    // Drafts are not in a release: their findings are not in its report.
    expect(rules.has('parent-deprecated')).toBe(false);
  });

  it("runs the IMF authors' types grammar: its violations are errors, PCA's deliberate style is not reported", async () => {
    const terminal = (await report(libraryQuery(clean, 'working'))).json();
    expect(terminal.findings).toEqual([]);
    const rows = await service.db
      .selectFrom('resources')
      .select('iri')
      .where('family', '=', 'imf-terminal')
      .where('library_key', '=', clean)
      .execute();
    const iri = rows[0]?.iri as string;
    const answer = await service.call(
      'GET',
      `/api/terminals/complete-imf-shacl?terminalId=${iri.slice(iri.lastIndexOf('/') + 1)}`,
      { headers: { accept: 'text/turtle' } },
    );
    expect(answer.statusCode).toBe(200);
    const shacl = new Parser({ format: 'Turtle' }).parse(answer.body);
    expect(await typesGrammarFindings(shacl)).toEqual([]);
    const withoutMinCount = shacl.filter(
      (q) => !(q.predicate.value === `${SH}minCount` && q.subject.termType === 'BlankNode'),
    );
    expect(withoutMinCount.length).toBeLessThan(shacl.length);
    const findings = await typesGrammarFindings(withoutMinCount);
    expect(findings.map((f) => f.severity)).toEqual(['error']);
    expect(findings[0]?.message).toContain('sh:hasValue, sh:minCount');
  });

  it('reports one resource alone, and refuses what it cannot read', async () => {
    const one = (await report(iriQuery(iris.parent))).json();
    expect(one.scope).toBe('resource');
    expect(one.findings.map((f: JsonFinding) => f.rule)).toEqual(['parent-deprecated']);
    // A symbol may belong to no library: it has none to be defined by.
    const symbol = await create(service, '/esl/engineeringSymbols', {
      name: uniqueName('Valve symbol'),
      dcIdentifier: uniqueName('V').replace(' ', '-'),
      width: 10,
      height: 10,
      shape: 'M 0 0 L 10 10',
      centerOfRotation: { x: 5, y: 2.5 },
    });
    expect((await report(iriQuery(symbol.iri))).json().findings).toEqual([]);
    for (const query of [
      '',
      `library=${encodeURIComponent(clean)}&${iriQuery(iris.parent)}`,
      `${iriQuery(iris.parent)}&view=working`,
      `library=${encodeURIComponent(clean)}&view=all`,
      `library=${encodeURIComponent(clean)}&extra=1`,
    ]) {
      const refused = await service.call('GET', `/quality?${query}`);
      expect(refused.statusCode, query).toBe(400);
    }
    expect(
      (await service.call('GET', `/quality?library=${encodeURIComponent(`${clean}-x`)}`))
        .statusCode,
    ).toBe(404);
    expect((await service.call('GET', `/quality?${iriQuery(`${clean}/none`)}`)).statusCode).toBe(
      404,
    );
  });

  it('refuses to release a library while its report has errors, with them', async () => {
    const refused = await service.call('POST', `/releases?library=${encodeURIComponent(broken)}`, {
      roles: ['Reviewer'],
      body: { version: '1.0.0', notes: 'Too early' },
    });
    expect(refused.statusCode).toBe(409);
    const problem = refused.json();
    expect(problem.type).toContain('/problems/quality-errors');
    expect(problem.errors.map((e: { detail: string }) => e.detail).join('\n')).toContain(
      'library-approved',
    );
    expect(
      await service.db
        .selectFrom('releases')
        .select('id')
        .where('library_iri', '=', broken)
        .execute(),
    ).toEqual([]);
    const released = await service.call('POST', `/releases?library=${encodeURIComponent(clean)}`, {
      roles: ['Reviewer'],
      body: { version: '1.0.0', notes: 'Clean' },
    });
    expect(released.statusCode, released.body).toBe(201);
  });
});
