import { afterEach, describe, expect, it } from 'vitest';
import { ResourceStore } from '../../src/refdata/resources/store.js';
import { DATABASE_KINDS } from '../harness.js';
import { type Refdata, startRefdata } from './helpers.js';

describe.each(DATABASE_KINDS)('the resource store’s followers on %s', (kind) => {
  let service: Refdata | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  it('tells each follower of a committed write, and a failing follower fails nothing', async () => {
    service = await startRefdata(kind);
    const store = new ResourceStore(service.db, () => undefined);
    const heard: string[] = [];
    const failures: unknown[] = [];
    store.onCommitted(
      () => {
        throw new Error('this follower is broken');
      },
      (error) => failures.push(error),
    );
    store.onCommitted(
      () => heard.push('second'),
      (error) => failures.push(error),
    );
    const library = await store.create(
      {
        iri: 'http://example.org/libraries/followed',
        family: 'library',
        name: 'Followed',
        libraryKey: 'http://example.org/libraries/followed',
        nameScope: '',
        parentIri: null,
        replacesIri: null,
        body: { name: 'Followed', description: 'A library the followers hear of' },
      },
      undefined,
      { actor: 'alice', justification: 'A test' },
    );
    expect(library.status).toBe('Draft');
    expect(heard).toEqual(['second']);
    expect(failures).toHaveLength(1);
    // A write that is refused (the IRI is taken) commits nothing, and nobody hears of it.
    await expect(
      store.create(
        {
          iri: 'http://example.org/libraries/followed',
          family: 'library',
          name: 'Followed again',
          libraryKey: 'http://example.org/libraries/followed',
          nameScope: '',
          parentIri: null,
          replacesIri: null,
          body: { name: 'Followed again', description: 'A duplicate' },
        },
        undefined,
        { actor: 'alice', justification: 'A test' },
      ),
    ).rejects.toThrow(/already exists/);
    expect(heard).toEqual(['second']);
  });
});
