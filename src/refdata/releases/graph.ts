import { DataFactory, type Quad } from 'n3';
import type { Refdata } from '../context.js';
import { resourceGraph } from '../rdf/resource-graph.js';
import { dcterms, owl, xsd } from '../rdf/vocabulary.js';
import { factsOf } from '../resources/rows.js';
import type { ReleaseRow } from './store.js';

const { namedNode, literal, quad } = DataFactory;

/** Members are handed to the writer this many at a time (as a library export does). */
const MEMBERS_PER_CHUNK = 50;

/** What names a release on its library: `owl:versionIRI` and `owl:versionInfo`. */
export function versionQuads(release: ReleaseRow): Quad[] {
  const library = namedNode(release.library_iri);
  return [
    quad(library, owl('versionIRI'), namedNode(release.iri)),
    quad(library, owl('versionInfo'), literal(release.version)),
  ];
}

/**
 * A release's RDF, as chunks of quads: every member's triples as they were
 * when it was released (the library's, its terms', their values'), the
 * library saying which version this is and when it was issued.
 */
export async function* releaseChunks(
  refdata: Refdata,
  release: ReleaseRow,
): AsyncGenerator<Quad[]> {
  yield [
    ...versionQuads(release),
    quad(
      namedNode(release.library_iri),
      dcterms('issued'),
      literal(new Date(Number(release.released_at)).toISOString(), xsd('dateTime')),
    ),
  ];
  for await (const members of refdata.releases.allMembers(release.id)) {
    const facts = factsOf(members);
    for (let start = 0; start < members.length; start += MEMBERS_PER_CHUNK) {
      const chunk: Quad[] = [];
      for (const member of members.slice(start, start + MEMBERS_PER_CHUNK)) {
        chunk.push(...resourceGraph(refdata, member, [], facts));
      }
      yield chunk;
    }
  }
}
