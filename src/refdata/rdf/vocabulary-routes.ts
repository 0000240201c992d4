import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { matchesIfNoneMatch } from '../../platform/http/conditional.js';
import type { HttpApp } from '../../platform/http/server.js';
import type { Refdata } from '../context.js';
import { HEADERS, JsonLdDocument, noContent, problems } from '../described-responses.js';
import { escapeHtml, refdataPage } from './html.js';
import { single } from './library-graph.js';
import { negotiate, notAcceptable } from './negotiation.js';
import { RDL_ONTOLOGY, rdlTermList, rdlVocabularyGraph } from './rdl-vocabulary.js';
import { RDF_FORMATS, RDF_MEDIA_TYPES } from './serialize.js';
import { RDL_NAMESPACE } from './vocabulary.js';

// Browsers, and clients that accept anything, get the page; RDF clients name their type.
const OFFERED = ['text/html', ...RDF_MEDIA_TYPES] as const;

/** The terms' content, hashed: the vocabulary's ETag changes exactly when a term does. */
const VERSION_TAG = createHash('sha256')
  .update(JSON.stringify(rdlTermList()))
  .digest('hex')
  .slice(0, 16);

/** The vocabulary for people: each term with an anchor its IRI's fragment names. */
function vocabularyPage(): string {
  const rows = rdlTermList()
    .map(
      (term) =>
        `<tr id="${escapeHtml(term.name)}"><th scope="row"><code class="term">rdl:${escapeHtml(term.name)}</code><br><small>${escapeHtml(term.kind)}</small></th><td>${escapeHtml(term.comment)}</td></tr>`,
    )
    .join('\n');
  return refdataPage(
    'Vocabulary',
    `<h1>refdata vocabulary</h1>
<p>Namespace <code>${escapeHtml(RDL_NAMESPACE)}</code> (prefix <code>rdl:</code>), the same for every deployment: the terms the service uses that no standard vocabulary has. Ask for this address with <code>Accept: text/turtle</code> (or any RDF type) for the RDF document.</p>
<table>
<thead><tr><th scope="col">Term (kind)</th><th scope="col">Meaning</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`,
  );
}

/**
 * `GET /vocab`: the `rdl:` vocabulary as an RDF document (every format resources
 * have) or a page, open to anyone like the problem types. Pages link `rdl:` terms
 * here, to `/vocab#<term>`.
 */
export function registerVocabularyRoutes(app: HttpApp, refdata: Refdata): void {
  app.get('/vocab', {
    schema: {
      summary: `The service's own vocabulary (${RDL_ONTOLOGY}), as RDF or a page`,
      tags: ['dereferencing'],
      response: {
        200: {
          description: 'The vocabulary in the representation the Accept header prefers',
          headers: { etag: HEADERS.etag },
          content: Object.fromEntries(
            OFFERED.map((mediaType) => [
              mediaType,
              {
                schema: mediaType.endsWith('json') ? JsonLdDocument : Type.String(),
              },
            ]),
          ),
        },
        304: noContent('The tag in If-None-Match is current'),
        ...problems(406),
      },
    },
    handler: async (request, reply) => {
      reply.header('vary', 'Accept').header('cache-control', 'public, max-age=3600');
      const mediaType = negotiate(request.headers.accept, OFFERED);
      if (mediaType) {
        // The vocabulary changes only with the code: one tag per release and representation.
        const etag = `"${VERSION_TAG}-${mediaType.split('/')[1]?.replace(/[^a-z]/g, '')}"`;
        reply.header('etag', etag);
        if (matchesIfNoneMatch(request.headers['if-none-match'], etag))
          return reply.status(304).send();
      }
      if (!mediaType) {
        throw notAcceptable(OFFERED, 'The vocabulary');
      }
      if (mediaType === 'text/html') {
        return reply.type('text/html; charset=utf-8').send(vocabularyPage());
      }
      const graph = rdlVocabularyGraph(`${refdata.publicUrl}/vocab`);
      const format = RDF_FORMATS[mediaType];
      return reply.type(format.contentType).send(format.stream(single(graph)));
    },
  });
}
