import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../../platform/http/problem.js';
import type { Role } from '../../auth/roles.js';
import { problem } from '../../problem-codes.js';
import type { Pages } from '../pages.js';
import { signInAddress } from '../pages.js';
import type { Viewer } from '../session.js';

/**
 * The signed-in viewer holding one of `roles`; a visitor is sent to sign in
 * (undefined: the reply is on its way), anyone else is told what it takes.
 */
export function viewerWith(
  pages: Pages,
  request: FastifyRequest,
  reply: FastifyReply,
  roles: readonly Role[],
  what: string,
): Viewer | undefined {
  const viewer = pages.viewerOf(request);
  if (!viewer) {
    void reply.redirect(signInAddress(request.url), 302);
    return undefined;
  }
  if (!viewer.roles.some((role) => roles.includes(role))) {
    throw new HttpError(
      problem(
        403,
        'forbidden',
        `${what} takes the ${roles.join(' or ')} role; you are signed in as ${viewer.roles.join(', ') || 'someone with no role'}.`,
      ),
    );
  }
  return viewer;
}

/** A submitted form's fields by name (the first value of a repeated one). */
export function formFieldsOf(body: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (body === null || typeof body !== 'object') return fields;
  for (const [name, value] of Object.entries(body)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields.set(name, first);
  }
  return fields;
}
