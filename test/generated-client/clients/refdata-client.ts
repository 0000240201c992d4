import createClient from 'openapi-fetch';
import type { paths } from '../generated/refdata.js';

/** The paths where a family is authored: POST a Draft, PUT its content, GET it. */
type AuthoringPath = {
  [P in keyof paths]: paths[P] extends { post: object; put: object; get: object } ? P : never;
}[keyof paths];

/** A GET by IRI answers the resource; the symbols' route also lists them without one. */
function single<T>(data: T | T[] | undefined): T | undefined {
  return Array.isArray(data) ? undefined : data;
}

/** What a family's POST takes, as the description says. */
type NewResource<P extends AuthoringPath> = paths[P] extends {
  post: { requestBody: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

const IMF = 'http://ns.imfid.org/imf#';
const JUSTIFICATION = 'Authored through a generated client';

/**
 * A new user's round through refdata with a client generated from its
 * description: a Draft of every family, each read, changed (with the ETag it
 * was read at), submitted, found by search, and approved by a reviewer.
 * Returns what each step answered, for the test to check.
 */
export async function authoringRound(
  baseUrl: string,
  tokens: { author: string; reviewer: string },
  suffix: string,
) {
  // JSON and Problem Details: the representations this client reads (the
  // description also offers Turtle, JSON-LD and pages at some operations).
  const client = (token: string) =>
    createClient<paths, 'application/json' | 'application/problem+json'>({
      baseUrl,
      headers: { authorization: `Bearer ${token}` },
    });
  const author = client(tokens.author);
  const reviewer = client(tokens.reviewer);
  const made: { path: AuthoringPath; iri: string; body: NewResource<AuthoringPath> }[] = [];

  /** POSTs a Draft and keeps it for the later steps; the pairing of path and body is typed. */
  async function draft<P extends AuthoringPath>(path: P, body: NewResource<P>): Promise<string> {
    // The pairing of path and body is checked where `draft` is called; the call
    // itself goes through the union, since openapi-fetch cannot pick an
    // operation for a path that is still a type parameter.
    const anyBody = body as NewResource<AuthoringPath>;
    const created = await author.POST(path as AuthoringPath, { body: anyBody });
    if (!created.data) {
      throw new Error(`${path}: ${created.response.status} ${JSON.stringify(created.error)}`);
    }
    made.push({ path, iri: created.data.iri, body: anyBody });
    return created.data.iri;
  }

  const common = (name: string) => ({
    name: `${name} ${suffix}`,
    description: `The ${name.toLowerCase()} of the generated-client round`,
    changeJustification: JUSTIFICATION,
  });

  const ontology = await draft('/ontologies/domains', common('Library'));
  const classIri = await draft('/rdl/terms/subclass', {
    ...common('Pump'),
    ontology,
    subClassOf: ['http://rds.posccaesar.org/ontology/plm/rdl/PCA_100000000'],
  });
  const dimension = await draft('/cfihos/dimension', {
    ...common('Length'),
    ontology,
    dimensionCode: 'L',
  });
  await draft('/cfihos/unitofmeasure', {
    ...common('Metre'),
    ontology,
    dimensionRef: dimension,
    measurementSystem: 'SI',
    symbol: 'm',
  });
  const property = await draft('/general/property', {
    ...common('Rated length'),
    ontology,
    types: ['number'],
    range: dimension,
  });
  await draft('/cfihos/entity', {
    ...common('Pump tag'),
    ontology,
    entityType: 'tag',
    propertyReferences: [{ propertyUri: property, minCardinality: 0, maxCardinality: 1 }],
  });
  const picklistBody: NewResource<'/cfihos/picklist'> = {
    ...common('Drive types'),
    ontology,
    subClassOf: classIri,
  };
  const picklist = await draft('/cfihos/picklist', picklistBody);
  const valueBody: NewResource<'/cfihos/picklistvalue'> = { ...common('Electric'), picklist };
  const value = await draft('/cfihos/picklistvalue', valueBody);
  // A picklist's PUT carries its complete list of values: the one just added stays.
  const picklistEntry = made.find((entry) => entry.iri === picklist);
  if (picklistEntry) {
    picklistEntry.body = {
      ...picklistBody,
      picklistValues: [{ id: value, name: valueBody.name, description: valueBody.description }],
    };
  }
  const attribute = await draft('/imf/attributetypes', {
    ...common('Temperature'),
    ontology,
    predicate: 'http://rds.posccaesar.org/ontology/plm/rdl/PCA_100003589',
    rangeQualifier: `${IMF}maximumQualifier`,
  });
  const terminal = await draft('/imf/terminaltypes', {
    ...common('Signal out'),
    ontology,
    aspect: `${IMF}productAspect`,
    direction: 'output',
    referenceTerms: [],
    attributeReferences: [{ entityUri: attribute, minCardinality: 1, maxCardinality: 1 }],
  });
  await draft('/imf/blocktypes', {
    ...common('Transmitter'),
    ontology,
    aspect: `${IMF}functionAspect`,
    referenceTerms: [],
    attributeReferences: [{ entityUri: attribute, minCardinality: 0 }],
    terminalReferences: [{ entityUri: terminal, minCardinality: 1, maxCardinality: 2 }],
    hasPartBlockReferences: [],
  });
  await draft('/esl/engineeringSymbols', {
    ...common('Valve'),
    ontology,
    dcIdentifier: `GC-${suffix}`,
    width: 96,
    height: 48,
    shape:
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 48"><path d="M0 0 L96 48 L96 0 L0 48 Z"/></svg>',
    centerOfRotation: { x: 48, y: 24 },
    connectionPoints: [{ id: 'a', x: 0, y: 24, direction: 180 }],
  });

  // Every Draft is read and changed first: a picklist's submission takes its values along.
  const changes = [];
  for (const { path, iri, body } of made) {
    const read = await author.GET(path, { params: { query: { iri } } });
    const resource = single(read.data);
    if (!resource) throw new Error(`read ${iri}: ${read.response.status}`);
    const etag = read.response.headers.get('etag') ?? '';
    const update = await author.PUT(path, {
      params: { query: { iri }, header: { 'if-match': etag } },
      body: { ...body, description: `${body.description} (revised)` },
    });
    // The version read before the change is stale now.
    const stale = await author.PUT(path, {
      params: { query: { iri }, header: { 'if-match': etag } },
      body,
    });
    changes.push({
      family: resource.family,
      created: resource.status,
      update: update.response.status,
      stale: { status: stale.response.status, type: stale.error?.type },
    });
  }

  const steps = [];
  for (const [index, { path, iri, body }] of made.entries()) {
    const change = changes[index];
    if (!change) throw new Error(`no change recorded for ${iri}`);
    // Read again first: submitting a picklist moved its values on.
    const current = await author.GET(path, { params: { query: { iri } } });
    const submit = await author.PUT('/status/submit', {
      params: {
        query: { iri },
        header: { 'if-match': current.response.headers.get('etag') ?? '' },
      },
    });
    const read = await author.GET(path, { params: { query: { iri } } });
    const found = await author.GET('/search/search-index', {
      params: { query: { q: body.name, family: [change.family] } },
    });
    steps.push({
      ...change,
      path,
      iri,
      submit: { status: submit.response.status, type: submit.error?.type },
      description: single(read.data)?.description,
      status: single(read.data)?.status,
      hits: found.data?.hits.map((hit) => hit.iri) ?? [],
      facet: found.data?.facets.family[change.family],
    });
  }

  const approvals = [];
  for (const { path, iri } of made) {
    const approve = await reviewer.PUT('/status/approve', {
      params: { query: { iri } },
      body: { justification: 'Reviewed through a generated client' },
    });
    const read = await reviewer.GET(path, { params: { query: { iri } } });
    approvals.push({
      iri,
      approve: { status: approve.response.status, type: approve.error?.type },
      status: single(read.data)?.status,
    });
  }
  return { steps, approvals };
}
