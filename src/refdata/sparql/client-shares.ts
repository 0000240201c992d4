import ipaddr from 'ipaddr.js';
import { tooManyRequests } from '../../platform/http/rate-limit.js';

/** A client's account of engine time: seconds it may still spend, as of `at`. */
interface Account {
  inFlight: number;
  balance: number;
  at: number;
}

/**
 * Each client's share of the SPARQL engine, so that one client's runaway
 * queries cannot take every copy from the others (docs/sparql.md#limits). A
 * client is the token's subject, or without a token the address (an IPv6
 * address by its /64, which one host is commonly given whole).
 *
 * Two bounds: at most `concurrent` of a client's queries at once (read,
 * waiting or evaluated), and an account of engine time, which a client's
 * queries are charged as they end and which fills again at `concurrent`
 * seconds a second, up to twice the time limit. A query stopped at the time
 * limit, or that made the engine fail, is charged three times the limit: its
 * copy is replaced, which costs everyone. A client past either bound is
 * answered 429 with `Retry-After`, and nothing of its query is read.
 */
export class ClientShares {
  private readonly accounts = new Map<string, Account>();
  private readonly capacity: number;

  constructor(
    private readonly concurrent: number,
    timeoutMilliseconds: number,
  ) {
    this.capacity = (2 * timeoutMilliseconds) / 1000;
  }

  /** Who a request is, for its share. */
  static clientOf(address: string, subject: string | undefined): string {
    if (subject !== undefined) return `subject:${subject}`;
    try {
      const parsed = ipaddr.process(address);
      if (parsed.kind() === 'ipv6') {
        const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
        return `address:${parts.map((part) => part.toString(16)).join(':')}::/64`;
      }
      return `address:${parsed.toString()}`;
    } catch {
      return `address:${address}`;
    }
  }

  /**
   * Admits one query of `client`, or throws 429: answers a function to call
   * once with the engine time the query took, and whether its copy had to be
   * replaced (stopped, or trapped).
   */
  admit(client: string, now = Date.now()): (seconds: number, replaced: boolean) => void {
    const account = this.refreshed(client, now);
    if (account.inFlight >= this.concurrent) {
      throw tooManyRequests(
        `This client has ${account.inFlight} ${account.inFlight === 1 ? 'query' : 'queries'} under way, as many as one client may; send the next when one is answered.`,
        1,
      );
    }
    if (account.balance <= 0) {
      const seconds = Math.max(1, Math.ceil(-account.balance / this.concurrent));
      throw tooManyRequests(
        `This client's queries have used its share of the engine (queries stopped at the time limit count three times); ask again in ${seconds} s.`,
        seconds,
      );
    }
    account.inFlight += 1;
    let charged = false;
    return (seconds, replaced) => {
      if (charged) return;
      charged = true;
      const now = this.refreshed(client, Date.now());
      now.inFlight -= 1;
      now.balance -= replaced ? Math.max(seconds, this.capacity / 2) * 3 : seconds;
      this.forgetIdle();
    };
  }

  /** A client's unspent engine time now, in seconds: whose query goes first when a copy frees. */
  balanceOf(client: string): number {
    return this.accounts.get(client) ? this.refreshed(client, Date.now()).balance : this.capacity;
  }

  /** The account as of `now`: filled by the time since it was last read. */
  private refreshed(client: string, now: number): Account {
    let account = this.accounts.get(client);
    if (!account) {
      account = { inFlight: 0, balance: this.capacity, at: now };
      this.accounts.set(client, account);
      return account;
    }
    const elapsed = Math.max(0, now - account.at) / 1000;
    account.balance = Math.min(this.capacity, account.balance + elapsed * this.concurrent);
    account.at = now;
    return account;
  }

  /** Drops accounts that are full and idle: they hold nothing a new one would not. */
  private forgetIdle(): void {
    if (this.accounts.size < 1000) return;
    const now = Date.now();
    for (const [client, account] of this.accounts) {
      const balance = account.balance + ((now - account.at) / 1000) * this.concurrent;
      if (account.inFlight === 0 && balance >= this.capacity) this.accounts.delete(client);
    }
  }
}
