/**
 * A refdata process killed with SIGKILL between committing a change and
 * delivering its event loses nothing: an event still in the outbox, and a
 * delivery in flight when the process died, both reach the receiver after
 * a restart (the latter once its lease lapses), as `npm start` runs it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProgramConfig } from '../../src/program.js';
import { loadOrCreateSigningKey } from '../../src/refdata/auth/signing-key.js';
import { mintToken } from '../../src/refdata/auth/tokens.js';
import { callProcess, killed, type RefdataProcess, startRefdataProcess } from './processes.js';
import { LOOPBACK_ALLOWED, Receiver } from './webhook-receiver.js';

type Instance = RefdataProcess;

describe('webhooks across a kill -9', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'chrd-webhooks-'));
  const children: ChildProcess[] = [];
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    ...LOOPBACK_ALLOWED,
    REFDATA_WEBHOOK_POLL_MS: '50',
    // A claimed delivery's lease is twice this and five seconds.
    REFDATA_WEBHOOK_TIMEOUT_MS: '200',
  };
  let token = '';
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
    const tokens = loadProgramConfig(env).settings.refdata.tokens;
    const key = await loadOrCreateSigningKey(tokens.signingKeyFile);
    token = await mintToken(key, tokens, {
      subject: 'alice',
      roles: ['Creator', 'Reviewer'],
      lifetimeSeconds: 3600,
    });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (extra: Record<string, string> = {}): Promise<Instance> =>
    startRefdataProcess({ ...env, ...extra }, children);

  const call = (instance: Instance, method: string, path: string, body?: unknown) =>
    callProcess(instance, token, method, path, body);

  it('delivers after a restart what was committed but not sent, and what was in flight', async () => {
    // 1. A process that commits but does not deliver (its worker is off), killed.
    const first = await start({ REFDATA_WORKERS: 'mail,imports' });
    const library = (
      await call(first, 'POST', '/ontologies/domains', {
        name: 'Crash library',
        description: 'For the crash test',
        changeJustification: 'Test',
      })
    ).iri as string;
    const hook = await call(first, 'POST', '/webhooks', {
      url: receiver.url,
      libraries: [library],
      events: ['created'],
    });
    const committed = (
      await call(first, 'POST', '/rdl/terms/subclass', {
        name: 'Committed pump',
        description: 'Created before the kill',
        changeJustification: 'Test',
        ontology: library,
        subClassOf: ['http://x.example/E'],
      })
    ).iri as string;
    await killed(first);
    expect(receiver.received).toHaveLength(0);

    // 2. A delivering process: the receiver holds the request unanswered; killed mid-delivery.
    receiver.answer = () => 'hang';
    const second = await start();
    await receiver.until((received) => received.length >= 1);
    const inFlight = receiver.received[0]?.headers['webhook-id'];
    expect(JSON.parse(receiver.received[0]?.body ?? '{}').data.iri).toBe(committed);
    await killed(second);

    // 3. Restarted, with a receiver that answers: the delivery is sent again once its lease lapses.
    receiver.answer = () => 200;
    const third = await start();
    await receiver.until((received) => received.length >= 2, 30_000);
    const again = receiver.received[1];
    expect(again?.headers['webhook-id']).toBe(inFlight);
    const log = await call(third, 'GET', `/webhooks/${hook.id}/deliveries`);
    const [delivery] = log.deliveries;
    expect(delivery.state).toBe('delivered');
    expect(delivery.log.at(-1).status).toBe(200);
    await killed(third);
  }, 90_000);
});
