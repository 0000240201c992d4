import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type FieldError, HttpError } from '../../../platform/http/problem.js';
import type { HttpApp } from '../../../platform/http/server.js';
import { html, type Markup } from '../../../platform/web/html.js';
import { csrfField, type Notice } from '../../../platform/web/layout.js';
import { WRITE_ROLES } from '../../auth/roles.js';
import type { Family } from '../../families/family.js';
import { fieldWords, humanize } from '../../families/field-words.js';
import { problem } from '../../problem-codes.js';
import { checkDraft, createDraft, updateDraft } from '../../resources/authoring.js';
import { changesBetween } from '../../resources/field-changes.js';
import { IRI_QUERY, notFound, readRow } from '../../resources/lookup.js';
import type { ResourceRow } from '../../resources/rows.js';
import { RefusedFields } from '../../resources/write-pipeline.js';
import { checkAuthor } from '../../review/authorship.js';
import { copiedBody, rejectionOf } from '../../review/copies.js';
import { pageHref } from '../links.js';
import type { Pages } from '../pages.js';
import { changeRequestNotice } from '../review/change-request.js';
import { changesTable } from './diff.js';
import { formFieldsOf } from './form-fields.js';
import {
  applyListAction,
  bodyOf,
  type Draft,
  draftFromFields,
  draftOf,
  emptyDraft,
  type FieldSchema,
  kindOf,
  parseListAction,
  referencesIn,
  schemaAt,
} from './form-model.js';
import { type FormState, fieldId, formFields, placeErrors } from './form-view.js';
import { type OpenPick, pickedResources, resourceNames, settleReferences } from './references.js';
import { AUTHORING_SCRIPT_PATH } from './script.js';

/** Who may see the pages for writing drafts (checked by the surface). */
const WRITING_DRAFTS = { roles: WRITE_ROLES, doing: 'Writing Drafts' } as const;
/** Who may see the pages for editing drafts (checked by the surface). */
const EDITING_DRAFTS = { roles: WRITE_ROLES, doing: 'Editing Drafts' } as const;

const FAMILY_PARAMS = Type.Object({ family: Type.String({ minLength: 1, maxLength: 100 }) });
/** A new form may start with top-level fields filled in (`?ontology=` from a library's page). */
const PREFILL_QUERY = Type.Record(
  Type.String({ maxLength: 100 }),
  Type.String({ maxLength: 2048 }),
  {
    maxProperties: 10,
  },
);

/** Why `ontology` cannot change on edit (see the API's fixed fields). */
const ONTOLOGY_FIXED = 'a term stays in the library it was created in';

interface FormPage {
  family: Family;
  draft: Draft;
  title: string;
  action: string;
  /** The version the form was opened at (edit). */
  version?: number;
  errors?: readonly FieldError[];
  open?: ReadonlyMap<string, OpenPick>;
  locked?: ReadonlyMap<string, string>;
  cancel: string;
  notice?: Notice;
  /** Shown above the form: a reviewer's change request, a rejection's reason. */
  above?: Markup;
}

/** The label of the field at a pointer, for the summary of a refused form. */
function pointerLabel(schema: FieldSchema, pointer: string): string {
  return fieldWords(schema, pointer) || 'The form';
}

/**
 * Creating and editing Drafts of every family, with forms made from each
 * family's own schema (no family has form code of its own), checked by the
 * same rules as the API.
 */
export function registerDraftPages(app: HttpApp, pages: Pages): void {
  const refdata = pages.refdata;

  const renderForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    page: FormPage,
  ) => {
    const schema = page.family.schema as FieldSchema;
    const shownAt = (pointer: string) => schemaAt(schema, pointer) !== undefined;
    const placed = placeErrors(page.errors ?? [], shownAt);
    const picked = await pickedResources(
      refdata,
      referencesIn(schema, page.draft).map((reference) => reference.value),
    );
    const state: FormState = {
      errors: placed,
      picked,
      open: page.open ?? new Map(),
      ownFamily: page.family.key,
      familyLabel: (key) => refdata.families.labelOf(key),
      locked: page.locked ?? new Map(),
      root: page.draft,
    };
    const problems = [
      ...[...placed].flatMap(([pointer, messages]) =>
        messages.map((message) => ({ pointer, message })),
      ),
      ...[...state.open].map(([pointer, open]) => ({ pointer, message: open.message })),
    ];
    const session = await pages.ensureSession(request, reply);
    const summary =
      problems.length > 0
        ? html`<div class="error-summary" role="alert" id="error-summary" tabindex="-1"><h2>The Draft was not saved: ${
            problems.length === 1 ? 'one thing needs' : `${problems.length} things need`
          } attention</h2><ul>${problems.map(({ pointer, message }) => {
            const field = schemaAt(schema, pointer);
            const target = field && kindOf(field) !== 'hidden' ? fieldId(pointer) : undefined;
            const words = `${pointerLabel(schema, pointer)} ${message}`;
            return html`<li>${target ? html`<a href="#${target}">${words}</a>` : words}</li>`;
          })}</ul></div>`
        : html``;
    return pages.answer(
      request,
      reply,
      status,
      { title: page.title, scripts: [AUTHORING_SCRIPT_PATH], notice: page.notice },
      html`${page.above ?? ''}${summary}<form method="post" action="${page.action}" class="authoring" novalidate>
${csrfField(session.data.csrf)}<button type="submit" name="_action" value="save" class="default-action" tabindex="-1" aria-hidden="true">Save</button>${
        page.version === undefined
          ? html``
          : html`<input type="hidden" name="_version" value="${String(page.version)}">`
      }
<p class="hint">${schema.description ?? ''}. Fields are required unless marked optional.</p>
${formFields(schema, page.draft, state)}
<p class="actions"><button type="submit" name="_action" value="save" class="primary">Save Draft</button> <button type="submit" name="_action" value="check">Check without saving</button> <a href="${page.cancel}">Cancel</a></p>
</form>`,
    );
  };

  /** A refused write's field errors, or undefined when the refusal is not about fields. */
  const refusedFields = (error: unknown): FieldError[] | undefined => {
    if (!(error instanceof HttpError)) return undefined;
    // The pipeline's own errors: the form names each field by its label.
    if (error instanceof RefusedFields) return [...error.fields];
    const { status, code, errors, detail } = error.problem;
    if (status === 400 && errors) return errors;
    if (status === 409 && code === 'duplicate')
      return [{ in: 'body', field: '/name', detail: `is taken: ${detail ?? ''}` }];
    return undefined;
  };

  /** Handles a posted form: a list button, a reference to choose, or a save. */
  const post = async (
    request: FastifyRequest,
    reply: FastifyReply,
    family: Family,
    target: { row?: ResourceRow; page: Omit<FormPage, 'draft' | 'family'> },
    save: (body: Static<TObject>) => Promise<ResourceRow>,
  ) => {
    const schema = family.schema as FieldSchema;
    const fields = formFieldsOf(request.body);
    const draft = draftFromFields(schema, fields);
    const open = await settleReferences(refdata, schema, draft, fields, family.key);
    const listAction = parseListAction(fields.get('_action') ?? '');
    const page = { ...target.page, family, open };
    if (listAction) {
      return renderForm(request, reply, 200, {
        ...page,
        draft: applyListAction(schema, draft, listAction),
      });
    }
    if (open.size > 0) return renderForm(request, reply, 422, { ...page, draft });
    const body = (bodyOf(schema, draft) ?? {}) as Static<TObject>;
    // The write pipeline checks it against the schema first, for Check and Save alike.
    if (fields.get('_action') === 'check') {
      const actor = pages.signedInViewer(request).subject;
      const errors = await checkDraft(refdata, family, body, target.row, actor);
      return renderForm(request, reply, errors.length > 0 ? 422 : 200, {
        ...page,
        draft,
        errors,
        ...(errors.length === 0
          ? {
              notice: {
                kind: 'ok' as const,
                text: 'Checked: it meets every rule. Nothing is saved until you save it.',
              },
            }
          : {}),
      });
    }
    try {
      const row = await save(body);
      const href = pageHref(refdata, row.iri) ?? '/';
      return reply.redirect(`${href}?done=${target.row ? 'saved' : 'created'}`, 303);
    } catch (error) {
      const errors = refusedFields(error);
      if (errors) return renderForm(request, reply, 422, { ...page, draft, errors });
      if (target.row && error instanceof HttpError && error.problem.code === 'stale-write')
        return conflict(request, reply, family, target.row.iri, draft);
      throw error;
    }
  };

  /** Someone saved the Draft since this form was opened: both versions, nothing overwritten. */
  const conflict = async (
    request: FastifyRequest,
    reply: FastifyReply,
    family: Family,
    iri: string,
    draft: Draft,
  ) => {
    const current = await readRow(refdata, family, iri);
    const schema = family.schema as FieldSchema;
    const stored = JSON.parse(current.body) as Record<string, unknown>;
    const yours = (bodyOf(schema, draft) ?? {}) as Record<string, unknown>;
    const { changeJustification: _yours, ...yourContent } = yours;
    const changes = changesBetween(stored, yourContent);
    const names = await resourceNames(
      refdata,
      changes.flatMap((change) => [change.before, change.after]),
    );
    const session = await pages.ensureSession(request, reply);
    const editAddress = `/authoring/edit?iri=${encodeURIComponent(iri)}`;
    const people = await pages.people.lookUp([current.updated_by]);
    return pages.answer(
      request,
      reply,
      409,
      {
        title: `${current.name} changed while you were editing`,
        scripts: [AUTHORING_SCRIPT_PATH],
        wide: true,
      },
      html`<p role="alert">${people.label(current.updated_by)} saved this Draft (version ${String(current.version)}) after you opened the form. Nothing you typed was saved, and nothing of theirs was overwritten.</p>
${changesTable(
  changes,
  { before: 'Saved now', after: 'Yours' },
  'Where your version differs from the saved one',
  names,
)}
<h2>What now</h2>
<form method="post" action="${editAddress}&amp;resume=1" class="inline">${csrfField(session.data.csrf)}
<input type="hidden" name="_draft" value="${JSON.stringify(draft)}">
<button type="submit">Edit again from your version</button>
</form>
<p>Your version opens in the form, now based on the saved one: saving it replaces theirs, so check their changes first.</p>
<p><a href="${editAddress}">Discard yours and edit the saved version</a> · <a href="${pageHref(refdata, iri) ?? '/'}">Leave it as it is</a></p>`,
    );
  };

  const lockedOnEdit = (family: Family): Map<string, string> =>
    new Map(
      Object.entries({ ontology: ONTOLOGY_FIXED, ...family.fixed })
        .filter(([field]) => family.schema.properties[field] !== undefined)
        .map(([field, why]) => [`/${field}`, why]),
    );

  const familyFrom = (key: string): Family => {
    const family = refdata.families.byKey(key);
    if (!family)
      throw new HttpError(problem(404, 'not-found', `There is no family called ${key}.`));
    return family;
  };

  app.get(
    '/authoring/new',
    {
      config: { viewers: WRITING_DRAFTS },
      schema: { querystring: PREFILL_QUERY },
    },
    async (request, reply) => {
      // What the form is to start with (a library's page says which library) goes along.
      const prefill = new URLSearchParams(request.query).toString();
      const library = request.query.ontology;
      const libraryName = library
        ? (await pickedResources(refdata, [library])).get(library)?.name
        : undefined;
      return pages.answer(
        request,
        reply,
        200,
        { title: 'New Draft' },
        html`<p>What are you writing${libraryName ? html` in ${libraryName}` : html``}?</p><ul class="cards" id="families">${refdata.families.all.map(
          (family) =>
            html`<li><a href="/authoring/new/${family.key}${prefill ? `?${prefill}` : ''}"><strong>${humanize(family.label)}</strong></a><p class="hint">${family.schema.description ?? ''}</p></li>`,
        )}</ul>`,
      );
    },
  );

  app.get(
    '/authoring/new/:family',
    {
      config: { viewers: WRITING_DRAFTS },
      schema: { params: FAMILY_PARAMS, querystring: PREFILL_QUERY },
    },
    async (request, reply) => {
      const family = familyFrom(request.params.family);
      const schema = family.schema as FieldSchema;
      const draft = emptyDraft(schema) as Record<string, Draft>;
      for (const [name, value] of Object.entries(request.query)) {
        const field = schema.properties?.[name];
        if (field && typeof draft[name] === 'string' && kindOf(field) !== 'hidden')
          draft[name] = value;
      }
      return renderForm(request, reply, 200, {
        family,
        draft,
        title: `New ${family.label}`,
        action: `/authoring/new/${family.key}`,
        cancel: '/authoring/new',
      });
    },
  );

  app.post(
    '/authoring/new/:family',
    {
      config: { viewers: WRITING_DRAFTS },
      schema: { params: FAMILY_PARAMS },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const family = familyFrom(request.params.family);
      return post(
        request,
        reply,
        family,
        {
          page: {
            title: `New ${family.label}`,
            action: `/authoring/new/${family.key}`,
            cancel: '/authoring/new',
          },
        },
        (body) => createDraft(refdata, family, body, viewer.subject),
      );
    },
  );

  /** The Draft at `iri` with its family, or why it cannot be edited. */
  const editable = async (iri: string) => {
    const found = await refdata.store.findByIri(iri);
    if (!found) throw notFound(iri);
    const family = familyFrom(found.family);
    if (found.status !== 'Draft') {
      throw new HttpError(
        problem(409, 'not-draft', `${found.name} is ${found.status}; only a Draft can be edited.`),
      );
    }
    return { row: found, family };
  };

  /**
   * A Rejected resource's copy, by its author: the new-Draft form filled with
   * what was rejected, the reviewer's reason above it; the fields its IRI is
   * made from (a symbol's identifier) left for a new value, since the Rejected
   * resource keeps its IRI.
   */
  app.get(
    '/authoring/copy',
    {
      config: { viewers: WRITING_DRAFTS },
      schema: { querystring: IRI_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const rejected = await refdata.store.findByIri(request.query.iri);
      if (!rejected) throw notFound(request.query.iri);
      const family = familyFrom(rejected.family);
      if (rejected.status !== 'Rejected' || family.parentIri)
        throw new HttpError(
          problem(
            409,
            'wrong-state',
            `${rejected.name} is ${rejected.status}; only a Rejected resource is copied into a new Draft.`,
          ),
        );
      checkAuthor(rejected, viewer.subject, 'copy');
      const reason = await rejectionOf(refdata, rejected);
      const body = await copiedBody(refdata, rejected, reason);
      for (const field of Object.keys(family.fixed ?? {})) delete body[field];
      const who = (await pages.people.lookUp([rejected.updated_by])).label(rejected.updated_by);
      // The fields its IRI is made from, by their labels on the form.
      const fixed = Object.keys(family.fixed ?? {}).map((field) =>
        (family.schema.properties[field]?.title ?? humanize(field)).toLowerCase(),
      );
      return renderForm(request, reply, 200, {
        family,
        draft: draftOf(family.schema as FieldSchema, body),
        title: `New ${family.label} from ${rejected.name}`,
        action: `/authoring/new/${family.key}`,
        cancel: pageHref(refdata, rejected.iri) ?? '/',
        above: html`<div class="notice error" id="rejection"><p>${rejected.name} was rejected by ${who}${reason ? html`: ${reason}` : html``}</p><p class="hint">It keeps its address and history; this is a new Draft${fixed.length > 0 ? html`, which needs its own ${fixed.join(' and ')}` : html``}.</p></div>`,
      });
    },
  );

  const editPage = (row: ResourceRow, family: Family) => ({
    title: `Edit ${row.name}`,
    action: `/authoring/edit?iri=${encodeURIComponent(row.iri)}`,
    cancel: pageHref(refdata, row.iri) ?? '/',
    locked: lockedOnEdit(family),
  });

  /** The stored Draft as the form shows it: values an aggregate owns included, a new justification asked for. */
  const storedDraft = async (row: ResourceRow, family: Family): Promise<Draft> => {
    const body = JSON.parse(row.body) as Record<string, unknown>;
    if (family.aggregate) {
      const children = await refdata.store.childrenOf(row.iri);
      body[family.aggregate.field] = children.map((child) => ({
        id: child.iri,
        ...(JSON.parse(child.body) as Record<string, unknown>),
      }));
    }
    return draftOf(family.schema as FieldSchema, body);
  };

  app.get(
    '/authoring/edit',
    {
      config: { viewers: EDITING_DRAFTS },
      schema: { querystring: IRI_QUERY },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const { row, family } = await editable(request.query.iri);
      // The page says who may, as the save would (docs/review.md).
      checkAuthor(row, viewer.subject, 'change');
      return renderForm(request, reply, 200, {
        ...editPage(row, family),
        above: await changeRequestNotice(pages, row),
        family,
        version: row.version,
        draft: await storedDraft(row, family),
      });
    },
  );

  app.post(
    '/authoring/edit',
    {
      config: { viewers: EDITING_DRAFTS },
      schema: {
        querystring: Type.Object(
          { iri: IRI_QUERY.properties.iri, resume: Type.Optional(Type.Literal('1')) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const viewer = pages.signedInViewer(request);
      const { iri, resume } = request.query;
      const { row, family } = await editable(iri);
      const fields = formFieldsOf(request.body);
      if (resume) {
        // Back from the conflict page: the person's version, on top of the saved one.
        const draft = resumedDraft(fields.get('_draft'), family);
        return renderForm(request, reply, 200, {
          ...editPage(row, family),
          family,
          version: row.version,
          draft,
        });
      }
      // The version the form was opened at travels with it through list buttons.
      const version = Number(fields.get('_version'));
      const saving = (fields.get('_action') ?? 'save') === 'save';
      if (saving && version !== row.version) {
        return conflict(
          request,
          reply,
          family,
          iri,
          draftFromFields(family.schema as FieldSchema, fields),
        );
      }
      return post(
        request,
        reply,
        family,
        {
          row,
          page: {
            ...editPage(row, family),
            version: Number.isSafeInteger(version) ? version : row.version,
          },
        },
        (body) => updateDraft(refdata, family, row, body, viewer.subject),
      );
    },
  );
}

/** A Draft carried through the conflict page, read back only as far as the schema allows. */
function resumedDraft(text: string | undefined, family: Family): Draft {
  const schema = family.schema as FieldSchema;
  try {
    const value = JSON.parse(text ?? '') as unknown;
    return draftOf(schema, bodyOf(schema, value as Draft) ?? {});
  } catch {
    return emptyDraft(schema);
  }
}
