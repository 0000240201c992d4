import type { FastifyReply } from 'fastify';

/**
 * A form that posts here and is answered with a redirect to another origin (a
 * client after consent, an identity provider for sign-in or sign-out) needs
 * that origin in the page's form-action, or browsers that apply form-action to
 * redirects stop the user at that point.
 */
export function allowFormRedirectTo(reply: FastifyReply, redirectUri: string) {
  const policy = reply.getHeader('content-security-policy');
  if (typeof policy !== 'string') return;
  const url = new URL(redirectUri);
  const source = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  reply.header(
    'content-security-policy',
    policy.replace(/form-action [^;]*/, `form-action 'self' ${source}`),
  );
}
