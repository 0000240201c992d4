import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';

/** The longest address a user may give. */
export const MAX_OUTBOUND_URL_LENGTH = 2048;
/** What is kept of an answer's body, for a log a person reads. */
const EXCERPT_BYTES = 2048;
/** An answer longer than this is not read to its end: the status has said what counts. */
const MAX_ANSWER_BYTES = 64 * 1024;

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Network = readonly [Address, number];

/** IPv6's global unicast space (RFC 4291 §2.4): what ipaddr.js calls unicast outside it is not. */
const GLOBAL_UNICAST_IPV6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether an address ipaddr.js calls unicast is one of the public internet's:
 * every IPv4 unicast address, and IPv6 only within 2000::/3, so that the
 * IPv4-compatible form (`::127.0.0.1`, ::/96, deprecated) and the other
 * reserved blocks outside it reach nothing.
 */
function isGlobal(address: Address): boolean {
  return address.kind() === 'ipv4' || (address as ipaddr.IPv6).match(GLOBAL_UNICAST_IPV6);
}

/**
 * Reads an operator's list of CIDR ranges (`10.1.0.0/16,127.0.0.0/8,::1/128`);
 * undefined when a part is not one, so that the caller can name its setting.
 */
export function parseNetworks(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return [];
  const parts = raw.split(',').map((part) => part.trim());
  for (const part of parts) {
    try {
      ipaddr.parseCIDR(part);
    } catch {
      return undefined;
    }
  }
  return parts;
}

/** What one outbound request came to, for the caller's log and retries. */
export interface OutboundAnswer {
  /** A 2xx answer. */
  ok: boolean;
  status: number | null;
  /** Why it is not ok, in words (a refused address, a redirect, a time-out); null when ok. */
  error: string | null;
  /** The first bytes of the answer's body. */
  excerpt: string;
  durationMs: number;
}

export interface OutboundRequest {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/**
 * The one way either service sends a request to an address a user gave
 * (webhook targets, back-channel logout URIs). An address must be `http(s)`,
 * without credentials or a fragment, and reach only the public internet:
 * private, loopback, link-local, unspecified and reserved ranges are refused
 * (as GitLab refuses requests to the local network by default) unless the
 * operator allows a range. It is checked when the address is saved and again
 * for the address each connection resolves to, so a name that later resolves
 * inside (DNS rebinding) reaches nothing. Redirects are never followed, each
 * request has a deadline, and an answer is read only so far.
 */
export class OutboundPolicy {
  private readonly allowed: readonly Network[];

  /**
   * @param allowedNetworks CIDR ranges the operator allows although they are
   *   not public (checked by `parseNetworks` when the setting was read).
   * @param anyAddress For an address the operator set up, not a user: every
   *   range is allowed, and the rest of the policy holds.
   */
  constructor(
    allowedNetworks: readonly string[],
    private readonly anyAddress = false,
    /**
     * Certificate authorities (PEM) trusted besides the usual ones, for https
     * addresses whose certificates an operator's own authority signed.
     */
    private readonly trustedCertificates?: readonly string[],
  ) {
    this.allowed = allowedNetworks.map((network) => ipaddr.parseCIDR(network));
    // Given `ca`, Node trusts only those: the usual authorities are kept beside them.
    this.ca = trustedCertificates ? [...rootCertificates, ...trustedCertificates] : undefined;
  }
  private readonly ca: string[] | undefined;

  /** The operator's policy (`OUTBOUND_ALLOWED_NETWORKS`, `OUTBOUND_CA_FILE`), with more ranges a service allows. */
  static of(
    config: {
      outboundAllowedNetworks: readonly string[];
      outboundTrustedCertificates: readonly string[] | undefined;
    },
    moreNetworks: readonly string[] = [],
  ): OutboundPolicy {
    return new OutboundPolicy(
      [...config.outboundAllowedNetworks, ...moreNetworks],
      false,
      config.outboundTrustedCertificates,
    );
  }

  /** The same policy for addresses the operator set up: any range is allowed. */
  forOperatorAddresses(): OutboundPolicy {
    this.operators ??= this.anyAddress
      ? this
      : new OutboundPolicy([], true, this.trustedCertificates);
    return this.operators;
  }
  private operators: OutboundPolicy | undefined;

  /** Why a URL is refused by its form alone; undefined when it is fine. */
  formProblem(text: string): string | undefined {
    if (text.length > MAX_OUTBOUND_URL_LENGTH)
      return `is longer than ${MAX_OUTBOUND_URL_LENGTH} characters`;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'is not a URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'is not an http(s) URL';
    if (url.username || url.password) return 'has credentials in it, which are never sent';
    if (url.hash || text.includes('#')) return 'has a fragment, which is never sent';
    return undefined;
  }

  /** Whether a request may connect to this address. */
  addressAllowed(address: string): boolean {
    if (this.anyAddress) return isIP(address.replace(/^\[|\]$/g, '')) !== 0;
    let parsed: Address;
    try {
      parsed = ipaddr.process(address);
    } catch {
      return false;
    }
    if (parsed.range() === 'unicast' && isGlobal(parsed)) return true;
    return this.allowed.some(
      ([network, bits]) =>
        network.kind() === parsed.kind() && parsed.match([network, bits] as never),
    );
  }

  /** Why a URL's host is refused (it resolves to no address, or to one not allowed). */
  async hostProblem(text: string): Promise<string | undefined> {
    const host = new URL(text).hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await resolveAll(host)).map((entry) => entry.address);
      } catch {
        return `names a host that does not resolve (${host})`;
      }
    }
    const refused = addresses.find((address) => !this.addressAllowed(address));
    return refused === undefined
      ? undefined
      : `resolves to ${refused}, a private, loopback or otherwise internal address`;
  }

  /** Why an address is refused when it is saved: its form, then where its host leads. */
  async problem(text: string): Promise<string | undefined> {
    return this.formProblem(text) ?? (await this.hostProblem(text));
  }

  /** A `lookup` for Node's HTTP client that refuses addresses not allowed. */
  readonly lookup = (
    hostname: string,
    options: object,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const refused = list.find((entry) => !this.addressAllowed(entry.address));
      if (refused) {
        const denied: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to ${refused.address}, an address requests may not go to`,
        );
        denied.code = 'EADDRNOTALLOWED';
        return callback(denied, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} has no address`), []);
      return callback(null, first.address, first.family);
    });
  };

  /**
   * Posts `body` to `target`. A 2xx answer is ok; anything else, a redirect
   * (never followed), a refused address, a time-out or a broken connection
   * is not, with the reason in words. Never throws.
   */
  async post(target: string, request: OutboundRequest): Promise<OutboundAnswer> {
    const { body: _read, ...answer } = await this.send('POST', target, {
      ...request,
      maxBodyBytes: EXCERPT_BYTES,
    });
    return answer;
  }

  /**
   * Reads `target` (a document a user named by its address), with the same
   * rules as `post`; the body is kept whole up to `maxBodyBytes`, and an
   * answer longer than that is not ok. Never throws.
   */
  async get(
    target: string,
    request: { headers: Record<string, string>; timeoutMs: number; maxBodyBytes: number },
  ): Promise<OutboundAnswer & { body: string | undefined }> {
    return this.send('GET', target, { ...request, body: '' });
  }

  private async send(
    method: 'GET' | 'POST',
    target: string,
    request: OutboundRequest & { maxBodyBytes: number },
  ): Promise<OutboundAnswer & { body: string | undefined }> {
    const started = performance.now();
    const done = (
      result: Omit<OutboundAnswer, 'durationMs'> & { body?: string },
    ): OutboundAnswer & { body: string | undefined } => ({
      ...result,
      body: result.body,
      durationMs: Math.round(performance.now() - started),
    });
    const form = this.formProblem(target);
    if (form) return done({ ok: false, status: null, error: `the address ${form}`, excerpt: '' });
    const url = new URL(target);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An address written in the URL is connected to without a lookup: checked here.
    if (isIP(host) && !this.addressAllowed(host)) {
      return done({
        ok: false,
        status: null,
        error: `${host} is an address requests may not go to`,
        excerpt: '',
      });
    }
    const { timeoutMs, maxBodyBytes } = request;
    // A POST's answer is read only far enough to show; a GET's body is what was asked for.
    const readLimit = method === 'GET' ? maxBodyBytes : MAX_ANSWER_BYTES;
    return new Promise((resolve) => {
      const outgoing = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
        url,
        {
          method,
          headers: {
            ...request.headers,
            ...(method === 'POST'
              ? { 'content-length': String(Buffer.byteLength(request.body)) }
              : {}),
          },
          lookup: this.lookup as never,
          timeout: timeoutMs,
          ...(this.ca ? { ca: this.ca } : {}),
        },
        (response: IncomingMessage) => {
          const status = response.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let size = 0;
          let finished = false;
          const finish = (error: string | null, tooLong = false) => {
            if (finished) return;
            finished = true;
            const whole = Buffer.concat(chunks);
            const excerpt = whole.subarray(0, EXCERPT_BYTES).toString('utf8');
            const ok = error === null && !tooLong && status >= 200 && status < 300;
            resolve(
              done({
                ok,
                status,
                error:
                  error ??
                  (tooLong
                    ? `answered more than ${maxBodyBytes} bytes`
                    : ok
                      ? null
                      : status >= 300 && status < 400
                        ? `answered ${status}; redirects are not followed`
                        : `answered ${status}`),
                excerpt,
                ...(method === 'GET' && ok ? { body: whole.toString('utf8') } : {}),
              }),
            );
          };
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= readLimit + chunk.length) chunks.push(chunk);
            if (size > readLimit) {
              response.destroy();
              finish(null, method === 'GET');
            }
          });
          response.on('end', () => finish(null));
          response.on('error', (error) => finish(error.message));
        },
      );
      const deadline = setTimeout(() => {
        outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      outgoing.on('error', (error) => {
        clearTimeout(deadline);
        resolve(done({ ok: false, status: null, error: error.message, excerpt: '' }));
      });
      outgoing.on('close', () => clearTimeout(deadline));
      outgoing.end(method === 'POST' ? request.body : undefined);
    });
  }
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });
}
