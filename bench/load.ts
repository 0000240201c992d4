import autocannon from 'autocannon';

export interface LoadFigures {
  name: string;
  connections: number;
  requests: number;
  seconds: number;
  /** Successful answers per second over the whole run. */
  perSecond: number;
  latencyMeanMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  /** Answers that were not the expected status, plus connection errors. */
  failures: number;
}

export interface LoadRun {
  name: string;
  url: string;
  connections: number;
  /** Either a fixed number of requests or a duration. */
  amount?: number;
  durationSeconds?: number;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** Builds each request's body, for requests that cannot repeat (spent refresh tokens). */
  nextBody?: () => string;
  /** Builds each request's path and body, for a mix of routes. */
  nextRequest?: () => { path: string; body: string };
  expectedStatus: number;
}

export async function runLoad(run: LoadRun): Promise<LoadFigures> {
  // Timed here, to the last answer: autocannon reports a run of a fixed number
  // of requests in whole seconds (it ends on its once-a-second tick), which made
  // 3,000 refreshes in 3.1 s and in 3.9 s the same figure.
  const started = performance.now();
  let lastAnswer = started;
  const result = await autocannon({
    url: run.url,
    setupClient: (client) => {
      client.on('response', () => {
        lastAnswer = performance.now();
      });
    },
    connections: run.connections,
    ...(run.amount ? { amount: run.amount } : { duration: run.durationSeconds ?? 10 }),
    method: run.method ?? 'GET',
    headers: run.headers ?? {},
    ...(run.body ? { body: run.body } : {}),
    ...(run.nextBody || run.nextRequest
      ? {
          requests: [
            {
              setupRequest: (request) => {
                if (run.nextRequest) {
                  const next = run.nextRequest();
                  request.path = next.path;
                  request.body = next.body;
                } else {
                  request.body = run.nextBody?.();
                }
                return request;
              },
            },
          ],
        }
      : {}),
  });
  const seconds = ((run.amount ? lastAnswer : performance.now()) - started) / 1000;
  const statuses = result.statusCodeStats ?? {};
  const expected = statuses[`${run.expectedStatus}`]?.count ?? 0;
  const answered = Object.values(statuses).reduce((sum, entry) => sum + (entry.count ?? 0), 0);
  return {
    name: run.name,
    connections: run.connections,
    requests: answered,
    seconds,
    perSecond: expected / seconds,
    latencyMeanMs: result.latency.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    failures: answered - expected + result.errors,
  };
}
