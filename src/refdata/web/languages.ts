import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { html, type Markup } from '../../platform/web/html.js';
import { scrollRegion } from '../../platform/web/scroll-region.js';
import { DEFAULT_LANGUAGE } from '../families/common.js';
import { sameLanguage } from '../families/languages.js';

/** A resource's labels in one language, as its page shows them. */
export interface LabelsIn {
  language: string;
  name: string;
  description: string | undefined;
  synonyms: string[];
}

interface LabelledBody {
  name?: string;
  description?: string;
  translations?: { language: string; name: string; description?: string }[];
  synonyms?: { language: string; label: string }[];
}

/** Every language a resource has labels in: its own first, then its translations', then synonyms' only. */
export function labelsOf(body: LabelledBody, ownLanguage: string): LabelsIn[] {
  const languages: LabelsIn[] = [
    {
      language: ownLanguage || DEFAULT_LANGUAGE,
      name: body.name ?? '',
      description: body.description,
      synonyms: [],
    },
  ];
  for (const translation of body.translations ?? [])
    languages.push({
      language: translation.language,
      name: translation.name,
      description: translation.description,
      synonyms: [],
    });
  for (const synonym of body.synonyms ?? []) {
    const entry = languages.find((labels) => sameLanguage(labels.language, synonym.language));
    if (entry) entry.synonyms.push(synonym.label);
    else
      languages.push({
        language: synonym.language,
        name: '',
        description: undefined,
        synonyms: [synonym.label],
      });
  }
  return languages;
}

/**
 * The labels a page shows: the language chosen on the page (`lang`), else the
 * best of the browser's Accept-Language among those the resource has a
 * preferred label in, else the resource's own. The answer varies by the header.
 */
export function chosenLabels(
  request: FastifyRequest,
  reply: FastifyReply,
  labels: readonly LabelsIn[],
  chosen: string | undefined,
): LabelsIn {
  reply.header('vary', 'Accept-Language');
  const named = labels.filter((entry) => entry.name !== '');
  const own = named[0] as LabelsIn;
  if (chosen !== undefined)
    return named.find((entry) => sameLanguage(entry.language, chosen)) ?? own;
  const header = request.headers['accept-language'];
  if (!header) return own;
  const best = new Negotiator({ headers: { 'accept-language': header } }).language(
    named.map((entry) => entry.language),
  );
  return (best && named.find((entry) => sameLanguage(entry.language, best))) || own;
}

/**
 * A resource's name in `language` when it has one there (its own name, or a
 * translation's), else its own name; with the language the name is in.
 */
export function nameIn(
  resource: { name: string; body: LabelledBody; language: string },
  language: string | undefined,
): { name: string; language: string } {
  const own = { name: resource.name, language: resource.language || DEFAULT_LANGUAGE };
  if (language === undefined) return own;
  const found = labelsOf(resource.body, own.language).find(
    (labels) => labels.name !== '' && sameLanguage(labels.language, language),
  );
  return found ? { name: found.name, language: found.language } : own;
}

const displayNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** A language as people read it: "Norwegian Bokmål (nb)". */
export function languageName(tag: string): string {
  let name = tag;
  try {
    name = displayNames.of(tag) ?? tag;
  } catch {
    // A tag Intl cannot place is shown as it is.
  }
  return name === tag ? tag : `${name} (${tag})`;
}

/**
 * Every language's labels, and a chooser that shows the page in one of them
 * (a GET form, so it works without script and can be shared).
 */
export function labelsSection(path: string, labels: readonly LabelsIn[], shown: LabelsIn): Markup {
  if (labels.length < 2 && labels[0]?.synonyms.length === 0) return html``;
  const named = labels.filter((entry) => entry.name !== '');
  return html`<h2 id="labels">Labels in ${labels.length} ${labels.length === 1 ? 'language' : 'languages'}</h2>
${
  named.length > 1
    ? html`<form method="get" action="${path}" class="inline-form" id="language-choice"><label for="lang">Show this page in</label> <select id="lang" name="lang">${named.map(
        (entry) =>
          html`<option value="${entry.language}"${entry === shown ? html` selected` : html``}>${languageName(entry.language)}</option>`,
      )}</select> <button type="submit">Show</button></form>`
    : html``
}
${scrollRegion(
  'Labels by language',
  html`<table id="label-table" class="details-table stacked"><thead><tr><th scope="col">Language</th><th scope="col">Preferred label</th><th scope="col">Definition</th><th scope="col">Other labels</th></tr></thead><tbody>${labels.map(
    (entry) =>
      html`<tr lang="${entry.language}"><th scope="row" lang="en">${languageName(entry.language)}</th><td data-label="Preferred label">${entry.name}</td><td data-label="Definition">${entry.description ?? ''}</td><td data-label="Other labels">${entry.synonyms.join('; ')}</td></tr>`,
  )}</tbody></table>`,
)}`;
}
