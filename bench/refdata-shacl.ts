/**
 * Complete SHACL of a large block: a root block whose parts form a ten-way tree of
 * N block types, each with ten attribute references (so 10·N of them), seeded in
 * bulk. Measures the time to the last byte and the server's peak memory, for N
 * from 10 to 1,000.
 */
import { randomUUID } from 'node:crypto';
import { seedResources } from './bulk.js';
import { peakMemoryMib } from './processes.js';
import type { RefdataBenchServer } from './refdata-server.js';

const IMF = 'http://ns.imfid.org/imf#';

/** Seeds the tree and returns the root block's GUID. */
async function seedBlockTree(server: RefdataBenchServer, parts: number): Promise<string> {
  const ontology = server.refs.library;
  const tag = randomUUID().slice(0, 8);
  const attributes = Array.from({ length: 10 }, (_, index) => ({
    iri: `${server.url}/imf/attributes/${randomUUID()}`,
    family: 'imf-attribute',
    name: `Attribute ${tag} ${index}`,
    body: {
      name: `Attribute ${index}`,
      description: 'Seeded',
      ontology,
      predicate: `http://example.org/p${index}`,
    },
  }));
  const blockIris = Array.from(
    { length: parts + 1 },
    () => `${server.url}/imf/blocks/${randomUUID()}`,
  );
  const blocks = blockIris.map((iri, index) => ({
    iri,
    family: 'imf-block',
    name: `Block ${tag} ${index}`,
    body: {
      name: `Block ${index}`,
      description: 'Seeded',
      ontology,
      aspect: `${IMF}productAspect`,
      referenceTerms: [],
      attributeReferences:
        index === 0
          ? []
          : attributes.map((attribute) => ({
              entityUri: attribute.iri,
              minCardinality: 0,
              maxCardinality: 1,
            })),
      terminalReferences: [],
      // A ten-way tree: block i has the parts 10i+1 .. 10i+10 (those that exist).
      hasPartBlockReferences: Array.from({ length: 10 }, (_, k) => index * 10 + k + 1)
        .filter((child) => child <= parts)
        .map((child) => ({
          entityUri: blockIris[child] as string,
          minCardinality: 0,
          maxCardinality: 1,
        })),
    },
  }));
  await seedResources(
    server,
    [...attributes, ...blocks].map((resource) => ({ ...resource, libraryKey: ontology })),
  );
  return (blockIris[0] as string).split('/').pop() as string;
}

export interface ShaclFigures {
  parts: number;
  attributeReferences: number;
  seconds: number;
  megabytes: number;
  peakMemoryMib: number | undefined;
}

export async function measureShacl(
  server: RefdataBenchServer,
  sizes: readonly number[],
): Promise<ShaclFigures[]> {
  const figures: ShaclFigures[] = [];
  for (const parts of sizes) {
    const guid = await seedBlockTree(server, parts);
    const started = performance.now();
    const response = await fetch(`${server.url}/api/blocks/complete-imf-shacl?blockId=${guid}`, {
      headers: { authorization: `Bearer ${server.token}`, accept: 'text/turtle' },
    });
    if (response.status !== 200) throw new Error(`complete SHACL answered ${response.status}`);
    const bytes = (await response.arrayBuffer()).byteLength;
    figures.push({
      parts,
      attributeReferences: parts * 10,
      seconds: (performance.now() - started) / 1000,
      megabytes: bytes / 1024 / 1024,
      peakMemoryMib: await peakMemoryMib(server.pid),
    });
  }
  return figures;
}
