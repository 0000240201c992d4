import type { Kysely } from 'kysely';
import { HttpError } from '../../platform/http/problem.js';
import type { Role } from '../auth/roles.js';
import type { Refdata } from '../context.js';
import type { RefdataTables } from '../db/tables.js';
import { isLibrary } from '../families/family.js';
import { commitMoves, plannedMove } from '../lifecycle/steps.js';
import { problem } from '../problem-codes.js';
import { pageHref } from '../resources/addresses.js';
import type { ResourceRow, StoredMove } from '../resources/rows.js';
import { checkAuthor, checkFourEyes, type Place, RESOURCE_PLACE } from './authorship.js';
import { unsettled } from './dependencies.js';
import type { Notice } from './notifications.js';

/** A reviewer's three answers to a submission. */
export type Decision = 'approve' | 'reject' | 'request-changes';

/** Who takes a step, with the roles they hold: whom to tell of what follows. */
export interface Actor {
  subject: string;
  roles: readonly Role[];
}

const TARGET = { approve: 'Approved', reject: 'Rejected', 'request-changes': 'Draft' } as const;

/** The library a package is listed under: a library's own IRI, a term's library. */
function libraryOf(row: ResourceRow): string {
  return isLibrary(row) ? row.iri : row.library_key;
}

/** The longest package name (the `packageName` field's bound). */
const NAME_LENGTH = 200;

/** A resource's page, absolute (the home page for one not of this service). */
export function pageLink(refdata: Refdata, iri: string): string {
  return `${refdata.publicUrl}${pageHref(refdata, iri) ?? '/'}`;
}

/** A package's page, absolute. */
export function packageLink(refdata: Refdata, id: number): string {
  return `${refdata.publicUrl}/review/packages/${id}`;
}

/** "Pump", "Pump and 2 more". */
function namesOf(rows: readonly ResourceRow[]): string {
  const [first] = rows;
  if (!first) return '';
  return rows.length === 1 ? first.name : `${first.name} and ${rows.length - 1} more`;
}

/** How many of each family, the most first: "832 CFIHOS equipment or tag classes, 367 picklists". */
export function countsByFamily(
  refdata: Pick<Refdata, 'families'>,
  rows: readonly Pick<ResourceRow, 'family'>[],
): string {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.family, (counts.get(row.family) ?? 0) + 1);
  return familyCounts(refdata, counts);
}

/** Counts by family in words, the most first. */
export function familyCounts(
  refdata: Pick<Refdata, 'families'>,
  counts: ReadonlyMap<string, number>,
): string {
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(
      ([family, count]) => `${count.toLocaleString('en')} ${familyWords(refdata, family, count)}`,
    )
    .join(', ');
}

/** A family's label for a count of its resources: "library", "3 libraries". */
function familyWords(refdata: Pick<Refdata, 'families'>, family: string, count: number): string {
  const label = refdata.families.labelOf(family);
  if (count === 1) return label;
  // "unit of measure": its first word takes the plural.
  const of = /^(\S+)( of .*)$/.exec(label);
  if (of) return `${plural(of[1] as string)}${of[2]}`;
  return plural(label);
}

function plural(label: string): string {
  if (/[^aeiou]y$/.test(label)) return `${label.slice(0, -1)}ies`;
  if (/(s|sh|ch|x)$/.test(label)) return `${label}es`;
  return `${label}s`;
}

/** Packages this large are told of by their counts, not a line per resource. */
const LISTED_IN_MAIL = 20;

/**
 * A package's name when its submitter gives none: one resource by its name,
 * a few by the first and how many more; many by the first and how many
 * resources (the queue and the package's page say of which families).
 */
function packageNameOf(rows: readonly ResourceRow[]): string {
  return rows.length <= 3
    ? namesOf(rows)
    : `${namesOf(rows.slice(0, 1))}: ${rows.length.toLocaleString('en')} resources`;
}

/**
 * A library's Drafts that `subject` may submit as one package: the library
 * itself when it is one of them, then its resources by id; an aggregate's
 * values are left out, as they move with it.
 */
export async function submittableDraftsIn(
  refdata: Refdata,
  library: ResourceRow,
  subject: string,
): Promise<ResourceRow[]> {
  const contents = await refdata.store.libraryContents(library.iri);
  return [library, ...contents].filter(
    (row) =>
      row.status === 'Draft' &&
      row.created_by === subject &&
      refdata.families.byKey(row.family)?.parentIri === undefined,
  );
}

/**
 * Submits the author's Drafts together, `first` with `others` it depends on,
 * as one package: a new one, or the package they were in before changes were
 * requested. Reviewers are told. Answers the package's id and the resources
 * as they are now.
 */
export async function submitTogether(
  refdata: Refdata,
  first: ResourceRow,
  others: readonly ResourceRow[],
  actor: Actor,
  name?: string,
): Promise<{ packageId: number; created: boolean; rows: ResourceRow[] }> {
  const rows = [first, ...others].filter(
    (row, index, all) => all.findIndex((other) => other.iri === row.iri) === index,
  );
  // Rows are moved in one order, by id, so that two overlapping submissions
  // wait for each other on PostgreSQL instead of deadlocking.
  const ordered = [...rows].sort((a, b) => a.id - b.id);
  for (const row of rows) checkAuthor(row, actor.subject, 'submit');
  const moves: StoredMove[] = [];
  for (const row of ordered)
    moves.push(
      await plannedMove(refdata, row, {
        from: 'Draft',
        to: 'Submitted',
        action: 'submit',
        actor: actor.subject,
        justification:
          rows.length > 1
            ? `Submitted for review with ${rows.length - 1} more`
            : 'Submitted for review',
      }),
    );
  await refdata.notifications.noteRoles(actor.subject, actor.roles);
  const before = await refdata.packages.ofResources(rows.map((row) => row.id));
  const existing = rows.map((row) => before.get(row.id)).find((id) => id !== undefined);
  const body = JSON.parse(first.body) as { packageName?: unknown };
  const named =
    name ??
    (typeof body.packageName === 'string' ? body.packageName : undefined) ??
    packageNameOf(rows);
  const reviewers = await refdata.notifications.holding('Reviewer');
  let packageId = existing ?? 0;
  let mailed = 0;
  const moved = await commitMoves(refdata, moves, async (trx) => {
    packageId = await refdata.packages.addWithin(trx, rows, existing, {
      name: named.slice(0, NAME_LENGTH),
      libraryKey: libraryOf(first),
      by: actor.subject,
      at: Date.now(),
    });
    mailed = await refdata.notifications.tell(trx, reviewers, {
      event: 'submitted',
      actor: actor.subject,
      iri: first.iri,
      packageId,
      title: `Submitted for review: ${rows.length > 1 ? named : first.name}`,
      text: `${namesOf(rows)} ${rows.length > 1 ? 'were' : 'was'} submitted for review${existing === undefined ? '' : ' again'}:\n${
        rows.length <= LISTED_IN_MAIL
          ? rows.map((row) => `- ${row.name} (${refdata.families.labelOf(row.family)})`).join('\n')
          : countsByFamily(refdata, rows)
      }`,
      link: packageLink(refdata, packageId),
    });
  });
  if (mailed > 0) refdata.mailer.wake();
  const firstMoved = moved[ordered.indexOf(first)] as ResourceRow;
  return {
    packageId,
    created: existing === undefined,
    rows: [firstMoved, ...moved.filter((row) => row.iri !== first.iri)],
  };
}

const DECISION_WORDS = {
  approve: 'Approved',
  reject: 'Rejected',
  'request-changes': 'Changes requested',
} as const;

/** Tells each author what became of their resources among `rows`; answers how many mails were queued. */
async function tellAuthors(
  refdata: Refdata,
  trx: Kysely<RefdataTables>,
  rows: readonly ResourceRow[],
  packages: ReadonlyMap<number, number>,
  decision: Decision,
  actor: string,
  text: string,
): Promise<number> {
  let mailed = 0;
  const byAuthor = new Map<string, ResourceRow[]>();
  for (const row of rows)
    byAuthor.set(row.created_by, [...(byAuthor.get(row.created_by) ?? []), row]);
  for (const [author, theirs] of byAuthor) {
    const first = theirs[0] as ResourceRow;
    const notice: Notice = {
      event: decision === 'request-changes' ? 'changes-requested' : 'decided',
      actor,
      iri: first.iri,
      packageId: packages.get(first.id),
      title: `${DECISION_WORDS[decision]}: ${theirs.length <= LISTED_IN_MAIL ? namesOf(theirs) : countsByFamily(refdata, theirs)}`,
      text: `${DECISION_WORDS[decision]}: ${theirs.length <= LISTED_IN_MAIL ? theirs.map((row) => row.name).join(', ') : countsByFamily(refdata, theirs)}.\n\n${decision === 'request-changes' ? 'What to change' : 'Why'}: ${text}`,
      link: pageLink(refdata, first.iri),
    };
    mailed += await refdata.notifications.tell(trx, [author], notice);
  }
  return mailed;
}

/**
 * A reviewer's decision on Submitted resources, taken together: all of them
 * move, or none (one changed meanwhile: 409, nothing done). Approving and
 * rejecting follow the four-eyes rule; an approval waits for everything the
 * resources name to be published or approved with them. Their authors are told.
 */
export async function decide(
  refdata: Refdata,
  rows: readonly ResourceRow[],
  decision: Decision,
  actor: Actor,
  text: string,
  place: Place = RESOURCE_PLACE,
): Promise<ResourceRow[]> {
  const move = {
    from: 'Submitted',
    to: TARGET[decision],
    action: decision,
    actor: actor.subject,
    justification: text,
  } as const;
  // In the order a reviewer needs the answers: the state, whose work it is, what it names.
  // Moved by id, in one order, as submissions are.
  const moves: StoredMove[] = [];
  for (const row of [...rows].sort((a, b) => a.id - b.id))
    moves.push(await plannedMove(refdata, row, move));
  if (decision !== 'request-changes')
    await checkFourEyes(refdata, rows, actor.subject, decision, place);
  if (decision === 'approve') {
    const missing = await unsettled(refdata, rows);
    if (missing.length > 0) {
      const list = missing
        .map((named) => `${named.row.name} <${named.row.iri}> is ${named.row.status}`)
        .join('; ');
      throw new HttpError(
        problem(
          409,
          'unapproved-dependencies',
          `It names what is not approved: ${list}. Approve that first, or with it in one decision.`,
          {
            title: 'It names what is not approved',
            errors: missing.map((named) => ({
              ...place,
              detail: `${named.by} names ${named.row.iri} (${named.row.name}, ${named.row.status}) in ${named.pointer}`,
            })),
          },
        ),
      );
    }
  }
  await refdata.notifications.noteRoles(actor.subject, actor.roles);
  // Read before the transaction: SQLite's one connection is the transaction's until it ends.
  const packages = await refdata.packages.ofResources(rows.map((row) => row.id));
  let mailed = 0;
  const moved = await commitMoves(refdata, moves, async (trx) => {
    mailed = await tellAuthors(refdata, trx, rows, packages, decision, actor.subject, text);
  });
  if (mailed > 0) refdata.mailer.wake();
  return moved;
}
