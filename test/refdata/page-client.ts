import type { LightMyRequestResponse } from 'fastify';
import type { Refdata } from './helpers.js';

export const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A browser of the web pages, through inject: keeps its cookie and the form token. */
export class Browser {
  cookie: string | undefined;
  csrf: string | undefined;
  constructor(readonly service: Refdata) {}

  private absorb(response: LightMyRequestResponse) {
    const header = response.headers['set-cookie'];
    for (const entry of Array.isArray(header) ? header : header ? [header] : []) {
      const [pair] = entry.split(';');
      const [name, value] = (pair ?? '').split('=');
      if (name === '_refdata_session') this.cookie = value || undefined;
    }
    const token = /name="authenticity_token" value="([0-9a-f]{64})"/.exec(response.body)?.[1];
    if (token) this.csrf = token;
    return response;
  }

  async get(url: string, accept = HTML) {
    return this.absorb(
      await this.service.app.inject({
        url,
        headers: { accept, ...(this.cookie ? { cookie: `_refdata_session=${this.cookie}` } : {}) },
      }),
    );
  }

  async post(url: string, fields: Record<string, string>) {
    const form = new URLSearchParams({
      ...(this.csrf && !('authenticity_token' in fields) ? { authenticity_token: this.csrf } : {}),
      ...fields,
    });
    return this.absorb(
      await this.service.app.inject({
        method: 'POST',
        url,
        headers: {
          accept: HTML,
          'content-type': 'application/x-www-form-urlencoded',
          ...(this.cookie ? { cookie: `_refdata_session=${this.cookie}` } : {}),
        },
        payload: form.toString(),
      }),
    );
  }

  async signInWithToken(token: string, returnTo = '/') {
    await this.get(`/sign-in?return_to=${encodeURIComponent(returnTo)}`);
    return this.post('/sign-in/token', { token, return_to: returnTo });
  }
}
