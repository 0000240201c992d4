import type { Kysely } from 'kysely';
import type { RefdataTables } from '../db/tables.js';

/** How a person is shown: their name, and their username where it says more. */
export interface Person {
  name: string;
  username: string | null;
}

/** What a sign-in through the provider says beyond the name: where mail reaches them, their roles. */
export interface Reach {
  email: string | null;
  roles: readonly string[];
}

const LONGEST = 255;

/**
 * The people who signed in through an identity provider, by the subject their
 * revisions record (`<issuer>#<sub>`, stable but unreadable): pages show the
 * name and username the provider last gave. Someone signed in with a pasted
 * token has no row and is shown by their subject, which is then their name.
 */
export class PeopleStore {
  constructor(private readonly db: Kysely<RefdataTables>) {}

  async remember(subject: string, person: Person, reach: Reach): Promise<void> {
    const row = {
      name: person.name.slice(0, LONGEST),
      username: person.username?.slice(0, LONGEST) ?? null,
      email: reach.email && reach.email.length <= 320 ? reach.email : null,
      roles: [...reach.roles].sort().join(' '),
      updated_at: Date.now(),
    };
    await this.db
      .insertInto('people')
      .values({ subject, ...row })
      .onConflict((conflict) => conflict.column('subject').doUpdateSet(row))
      .execute();
  }

  /** The people among `subjects` that are known; the rest are shown as they are. */
  async lookUp(subjects: Iterable<string>): Promise<People> {
    const wanted = [...new Set(subjects)];
    const rows =
      wanted.length === 0
        ? []
        : await this.db
            .selectFrom('people')
            .select(['subject', 'name', 'username'])
            .where('subject', 'in', wanted)
            .execute();
    return new People(new Map(rows.map((row) => [row.subject, row])));
  }
}

/** A page's people, read once for all the actors it shows. */
export class People {
  constructor(private readonly known: ReadonlyMap<string, Person>) {}

  /** "Ada Lovelace (ada)", "Ada Lovelace", or the subject itself when nobody is known by it. */
  label(subject: string): string {
    const person = this.known.get(subject);
    if (!person) return subject;
    return person.username && person.username !== person.name
      ? `${person.name} (${person.username})`
      : person.name;
  }
}
