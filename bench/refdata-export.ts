/**
 * The level-3 export of a large library: seed N classes into one library in bulk
 * (straight into the server's database, as a migration would), then read the
 * library at detailLevel=3 and measure the time to the last byte and the server
 * process's peak memory.
 */
import { randomUUID } from 'node:crypto';
import { type SeedResource, seedResources } from './bulk.js';
import { peakMemoryMib } from './processes.js';
import { waitForIndex } from './refdata-search.js';
import type { RefdataBenchServer } from './refdata-server.js';

/** N classes in one library (the export tests seed theirs with it too). */
export function* exportCorpus(libraryIri: string, terms: number): Generator<SeedResource> {
  for (let n = 0; n < terms; n += 1) {
    const name = `Exported class ${n}`;
    yield {
      iri: `${libraryIri}/${randomUUID()}`,
      family: 'class',
      name,
      libraryKey: libraryIri,
      body: {
        name,
        description: `Class number ${n} of the export benchmark`,
        ontology: libraryIri,
        subClassOf: ['http://example.org/Equipment'],
      },
    };
  }
}

export interface ExportFigures {
  terms: number;
  format: string;
  seconds: number;
  megabytes: number;
  peakMemoryMib: number | undefined;
  memoryBeforeMib: number | undefined;
}

export async function measureExport(
  server: RefdataBenchServer,
  terms: number,
  formats: readonly string[],
): Promise<ExportFigures[]> {
  await seedResources(server, exportCorpus(server.refs.library, terms));
  // The instance takes the seeded terms into its search index through the change
  // log; that is waited for, so the export's memory is measured on its own.
  await waitForIndex(server, [server.refs.library], terms, { atLeast: true });
  const figures: ExportFigures[] = [];
  for (const format of formats) {
    const memoryBeforeMib = await peakMemoryMib(server.pid);
    const started = performance.now();
    const response = await fetch(
      `${server.url}${new URL(server.refs.library).pathname}?detailLevel=3`,
      {
        headers: { authorization: `Bearer ${server.token}`, accept: format },
      },
    );
    if (response.status !== 200 || !response.body)
      throw new Error(`export answered ${response.status}`);
    let bytes = 0;
    for await (const chunk of response.body) bytes += (chunk as Uint8Array).byteLength;
    figures.push({
      terms,
      format,
      seconds: (performance.now() - started) / 1000,
      megabytes: bytes / 1024 / 1024,
      peakMemoryMib: await peakMemoryMib(server.pid),
      memoryBeforeMib,
    });
  }
  return figures;
}
