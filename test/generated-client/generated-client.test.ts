import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAMILIES } from '../../src/refdata/families/registry.js';
import {
  type Codehost,
  createApplication,
  createUser,
  startCodehost,
} from '../codehost/helpers.js';
import { DATABASE_KINDS } from '../harness.js';
import { type Refdata, startListeningRefdata } from '../refdata/helpers.js';
import { GENERATED_DIRECTORY, generateTypes, typeErrors } from './generate.js';

/**
 * What a team does first with an API: generate a client from the running
 * service's `/openapi.json` (openapi-typescript for the types, openapi-fetch
 * for the calls) and use it. The client code in `clients/` names no type of
 * its own: it compiles only if the description says what the services take
 * and answer, and it runs against the services themselves.
 */

const CLIENTS = join(dirname(fileURLToPath(import.meta.url)), 'clients');
const CLIENT_FILES = ['codehost-client.ts', 'refdata-client.ts'].map((file) => join(CLIENTS, file));

/** Uses of the generated types that are wrong; each must be refused by the compiler. */
const MISUSES = `import createClient from 'openapi-fetch';
import type { paths as Codehost } from './codehost.js';
import type { paths as Refdata } from './refdata.js';

export async function misuse() {
  const gitlab = createClient<Codehost>({ baseUrl: 'http://127.0.0.1' });
  const rdl = createClient<Refdata>({ baseUrl: 'http://127.0.0.1' });
  await gitlab.PUT('/api/v4/notification_settings', { body: { level: 'loudest' } });
  await rdl.POST('/rdl/terms/subclass', {
    body: { name: 'Pump', description: 'd', changeJustification: 'j', ontology: 'x' },
  });
  await rdl.GET('/search/search-index', { params: { query: { family: ['pumps'] } } });
  const user = await gitlab.GET('/api/v4/user');
  return user.data?.favourite_colour;
}
`;

/** The flows in `clients/`, loaded at run time: their types exist only once generated. */
interface Flows {
  notificationSettingsRound(
    baseUrl: string,
    account: { username: string; password: string; clientId: string; clientSecret: string },
  ): Promise<Record<string, unknown>>;
  authoringRound(
    baseUrl: string,
    tokens: { author: string; reviewer: string },
    suffix: string,
  ): Promise<{
    steps: Record<string, unknown>[];
    approvals: { iri: string; approve: { status: number; type?: string }; status?: string }[];
  }>;
}

async function loadFlows(): Promise<Flows> {
  const [codehost, refdata] = await Promise.all(
    CLIENT_FILES.map((file) => import(pathToFileURL(file).href)),
  );
  return { ...codehost, ...refdata } as Flows;
}

describe.each(DATABASE_KINDS)('clients generated from the running services (%s)', (kind) => {
  let codehost: Codehost;
  let refdata: Refdata & { url: string };

  beforeAll(async () => {
    [codehost, refdata] = await Promise.all([
      startCodehost(kind, { listen: true }),
      startListeningRefdata({}, { kind }),
    ]);
    await generateTypes(codehost.url, 'codehost');
    await generateTypes(refdata.url, 'refdata');
  });
  afterAll(async () => {
    await Promise.all([codehost?.close(), refdata?.close()]);
  });

  it('compile against the generated types, which refuse what the services refuse', () => {
    const misuses = join(GENERATED_DIRECTORY, 'misuses.ts');
    writeFileSync(misuses, MISUSES);
    expect(typeErrors(CLIENT_FILES)).toEqual([]);
    const refused = typeErrors([misuses]);
    const lineOf = (text: string) =>
      MISUSES.split('\n').findIndex((line) => line.includes(text)) + 1;
    expect(refused.map((error) => Number(/\.ts:(\d+):/.exec(error)?.[1]))).toEqual([
      lineOf("'loudest'"),
      lineOf('body: { name'),
      lineOf("'pumps'"),
      lineOf('favourite_colour'),
    ]);
    expect(refused[1]).toContain('subClassOf');
  }, 60_000);

  it("change a user's notification settings through codehost's generated client", async () => {
    const user = await createUser(codehost);
    const application = await createApplication(codehost, user.id, { scopes: ['api'] });
    const round = await (await loadFlows()).notificationSettingsRound(codehost.url, {
      username: user.username,
      password: user.password,
      clientId: application.clientId,
      clientSecret: application.secret,
    });
    expect(round).toEqual({
      username: user.username,
      globalBefore: { level: 'participating', notification_email: user.email },
      globalAfter: {
        level: 'custom',
        notification_email: user.email,
        events: expect.objectContaining({ new_note: true, merge_merge_request: true }),
      },
      groupBefore: { level: 'global' },
      groupAfter: { level: 'watch' },
      projectAfter: { level: 'disabled' },
      projectRead: { level: 'disabled' },
      missing: { status: 404, message: '404 Project Not Found' },
    });
  });

  it("author, submit, find and approve every family through refdata's generated client", async () => {
    const { authoringRound } = await loadFlows();
    const { steps, approvals } = await authoringRound(
      refdata.url,
      {
        author: await refdata.token(['Creator'], 'author'),
        reviewer: await refdata.token(['Reviewer'], 'reviewer'),
      },
      `${kind}-${Date.now()}`,
    );
    expect(steps.map((step) => step.family).sort()).toEqual(
      FAMILIES.map((family) => family.key).sort(),
    );
    for (const step of steps) {
      // A picklist's value moves with its picklist, never alone.
      const alone = step.family === 'picklist-value';
      expect(step).toMatchObject({
        created: 'Draft',
        update: 204,
        stale: { status: 409, type: expect.stringMatching(/stale-write$/) },
        submit: alone
          ? { status: 409, type: expect.stringMatching(/moves-with-picklist$/) }
          : { status: 204 },
        status: 'Submitted',
        description: expect.stringMatching(/\(revised\)$/),
      });
      expect(step.hits).toContain(step.iri);
      expect(step.facet).toBeGreaterThanOrEqual(1);
    }
    for (const approval of approvals) {
      expect(approval.status).toBe('Approved');
    }
    expect(approvals.filter((approval) => approval.approve.status === 204)).toHaveLength(
      FAMILIES.length - 1,
    );
  });
});
