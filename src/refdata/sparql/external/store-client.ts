import DigestClient from 'digest-fetch';
import type { ExternalStoreConfig } from '../../config.js';

/** How much of a store's refusal is kept for the log and for a client's problem. */
const MESSAGE_CHARACTERS = 2000;

/** The store answered a request with an error status, or not at all. */
export class StoreError extends Error {
  constructor(
    message: string,
    /** The store's status; undefined when it could not be reached. */
    readonly status: number | undefined,
    /** What the store said (its first part). */
    readonly said: string,
  ) {
    super(message);
  }
}

/** The protocol's dataset for a query: graphs that make the default graph, and named ones. */
export interface StoreDataset {
  defaultGraphs: readonly string[];
  namedGraphs: readonly string[];
}

/**
 * An external SPARQL store spoken to through the W3C protocols only: queries
 * by the SPARQL 1.1 Protocol, deletions by SPARQL 1.1 Update, triples written
 * by the SPARQL 1.1 Graph Store HTTP Protocol. So Virtuoso, Fuseki, GraphDB
 * and Oxigraph's server all serve, each by its addresses (docs/sparql.md).
 */
export class ExternalStore {
  /** Sends credentials the store's way (Basic, or Digest with its challenge first). */
  private readonly writer: { fetch(url: string, init: RequestInit): Promise<Response> };

  constructor(readonly config: ExternalStoreConfig) {
    const { user, password } = config;
    this.writer =
      user === undefined || password === undefined
        ? { fetch: (url, init) => fetch(url, init) }
        : (new DigestClient(user, password, { basic: config.auth === 'basic' }) as {
            fetch(url: string, init: RequestInit): Promise<Response>;
          });
  }

  /** Runs a SPARQL Update (the store applies its operations in order). */
  async update(text: string): Promise<void> {
    await this.write(this.config.updateUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-update; charset=utf-8' },
      body: text,
    });
  }

  /**
   * Writes N-Triples into a graph: `PUT` replaces what it holds, `POST` adds
   * to it. Blank nodes are the graph's new ones either way.
   */
  async writeGraph(method: 'PUT' | 'POST', graph: string, ntriples: string): Promise<void> {
    const url = new URL(this.config.graphStoreUrl);
    url.searchParams.set('graph', graph);
    await this.write(url.href, {
      method,
      headers: { 'content-type': 'application/n-triples; charset=utf-8' },
      body: ntriples,
    });
  }

  /**
   * Sends a query as a form, as a client of the store would, without the
   * credentials (they are for writing); the store's answer is the caller's
   * to read.
   */
  async query(
    text: string,
    accept: string,
    dataset: StoreDataset | undefined,
    signal: AbortSignal,
  ): Promise<Response> {
    const form = new URLSearchParams({ query: text });
    for (const graph of dataset?.defaultGraphs ?? []) form.append('default-graph-uri', graph);
    for (const graph of dataset?.namedGraphs ?? []) form.append('named-graph-uri', graph);
    return fetch(this.config.queryUrl, {
      method: 'POST',
      headers: { accept, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      signal,
    });
  }

  /**
   * How long a write may take before it counts as failed (and is sent again
   * later): a third of the lease, so that a write begun with half the lease
   * left ends before another instance may take over (store-sync.ts).
   */
  private get writeTimeoutMilliseconds(): number {
    return Math.floor(this.config.leaseMilliseconds / 3);
  }

  private async write(url: string, init: RequestInit): Promise<void> {
    let response: Response;
    try {
      response = await this.writer.fetch(url, {
        ...init,
        signal: AbortSignal.timeout(this.writeTimeoutMilliseconds),
      });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new StoreError(`the SPARQL store could not be reached (${why})`, undefined, '');
    }
    const said = (await response.text()).slice(0, MESSAGE_CHARACTERS);
    if (!response.ok) {
      throw new StoreError(
        `the SPARQL store answered ${response.status} to ${init.method} ${new URL(url).pathname}`,
        response.status,
        said,
      );
    }
  }
}
