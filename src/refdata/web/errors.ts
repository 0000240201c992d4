import type { ErrorRenderer } from '../../platform/http/errors.js';
import { errorContent } from '../../platform/web/layout.js';
import { refdataPage } from '../rdf/html.js';
import { surfaceOf } from './surface.js';

/**
 * refdata's answer to an address no route serves: a page in the site's frame
 * for a browser, Problem Details for a program (chosen by Accept, as at a
 * resource's IRI). Every other failure is rendered by the surface it happened
 * on: the web pages' plugin has its own handler.
 */
export function pageOrProblemRenderer(problemDetails: ErrorRenderer): ErrorRenderer {
  return (problem, context) => {
    if (
      !context.request.is404 ||
      surfaceOf(context.request.headers.accept, context.request.headers.authorization) !== 'page'
    ) {
      return problemDetails(problem, context);
    }
    const { title, body } = errorContent(problem, context.traceId);
    return { contentType: 'text/html; charset=utf-8', body: refdataPage(title, body.text) };
  };
}
