import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The longest target URL taken. */
export const MAX_URL_LENGTH = 2048;

type Network = readonly [ipaddr.IPv4 | ipaddr.IPv6, number];

/** IPv6's global unicast space (RFC 4291 §2.4): what ipaddr.js calls unicast outside it is not. */
const GLOBAL_UNICAST_IPV6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether an address ipaddr.js calls unicast is one of the public internet's:
 * every IPv4 unicast address, and IPv6 only within 2000::/3, so that the
 * IPv4-compatible form (`::127.0.0.1`, ::/96, deprecated) and the other
 * reserved blocks outside it reach nothing.
 */
function isGlobal(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return address.kind() === 'ipv4' || (address as ipaddr.IPv6).match(GLOBAL_UNICAST_IPV6);
}

/**
 * Where deliveries may go: `http(s)` URLs without credentials, to public
 * addresses only, unless a range is allowed by setting
 * (`REFDATA_WEBHOOK_ALLOWED_NETWORKS`). Checked when a subscription is saved
 * and again for the address each delivery connects to, so a name that later
 * resolves to an inside address (DNS rebinding) reaches nothing.
 */
export class TargetPolicy {
  constructor(private readonly allowed: readonly Network[]) {}

  /** Why a URL is refused by its form alone; undefined when it is fine. */
  formProblem(text: string): string | undefined {
    if (text.length > MAX_URL_LENGTH) return `is longer than ${MAX_URL_LENGTH} characters`;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'is not a URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'is not an http(s) URL';
    if (url.username || url.password)
      return 'has credentials in it; the signature authenticates deliveries';
    if (url.hash) return 'has a fragment, which is never sent';
    return undefined;
  }

  /** Whether a delivery may connect to this address. */
  addressAllowed(address: string): boolean {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
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
          `${hostname} resolves to ${refused.address}, an address deliveries may not go to`,
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
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });
}
