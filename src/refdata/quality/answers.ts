import { DataFactory, type Quad } from 'n3';
import type { Refdata } from '../context.js';
import { rdf, rdfs } from '../rdf/vocabulary.js';
import { writableIri } from '../rdf/writable-terms.js';
import type { Finding, QualityReport } from './report.js';
import { QUALITY_NAMESPACE, RULES, ruleIri } from './rules.js';

const { namedNode, literal, quad, blankNode } = DataFactory;
const SH = 'http://www.w3.org/ns/shacl#';
const sh = (local: string) => namedNode(`${SH}${local}`);
/** The constraint component of a rule checked in code, not by the engine. */
const CHECKED_IN_CODE = `${QUALITY_NAMESPACE}CheckedInCode`;

/**
 * Where a finding is mended: a Draft's form, or the page of anything else
 * (where an Approved resource is replaced). Only for IRIs this service serves.
 */
export function fixUrl(refdata: Refdata, item: Finding): string | undefined {
  const path = pagePath(refdata, item.resource);
  if (path === undefined) return undefined;
  if (item.status === 'Draft')
    return `${refdata.publicUrl}/authoring/edit?${new URLSearchParams({ iri: item.resource })}`;
  return `${refdata.publicUrl}${path}`;
}

/** The path of one of our IRIs on this service; never one that would leave it (`//host`). */
function pagePath(refdata: Refdata, iri: string): string | undefined {
  if (!iri.startsWith(`${refdata.iriBase}/`)) return undefined;
  const path = iri.slice(refdata.iriBase.length);
  return /^\/[/\\]/.test(path) ? undefined : path;
}

/** A report as JSON: counts, then each finding with its rule and where to mend it. */
export function reportJson(refdata: Refdata, report: QualityReport) {
  return {
    scope: report.scope,
    subject: report.subject,
    conforms: report.errors === 0,
    errors: report.errors,
    warnings: report.warnings,
    findings: report.findings.map((item) => ({
      severity: item.severity,
      rule: item.rule,
      ruleIri: ruleIri(item.rule),
      ruleLabel: RULES[item.rule],
      resource: item.resource,
      name: item.name,
      status: item.status,
      message: item.message,
      fix: fixUrl(refdata, item) ?? null,
    })),
  };
}

/**
 * A report as a SHACL validation report: `sh:conforms` (no errors), and a
 * `sh:ValidationResult` per finding whose source shape is its rule's IRI.
 */
export function reportQuads(report: QualityReport): Quad[] {
  const node = blankNode();
  const quads: Quad[] = [
    quad(node, rdf('type'), sh('ValidationReport')),
    quad(
      node,
      sh('conforms'),
      literal(String(report.errors === 0), namedNode('http://www.w3.org/2001/XMLSchema#boolean')),
    ),
  ];
  for (const item of report.findings) {
    const result = blankNode();
    quads.push(
      quad(node, sh('result'), result),
      quad(result, rdf('type'), sh('ValidationResult')),
      quad(result, sh('focusNode'), namedNode(writableIri(item.resource))),
      // SHACL asks each result for its constraint component: the engine's, or,
      // for a rule checked in code, the rule's own (its shape is deactivated).
      quad(result, sh('sourceConstraintComponent'), namedNode(item.component ?? CHECKED_IN_CODE)),
      quad(result, sh('resultSeverity'), sh(item.severity === 'error' ? 'Violation' : 'Warning')),
      quad(result, sh('sourceShape'), namedNode(ruleIri(item.rule))),
      quad(result, sh('resultMessage'), literal(`${item.name} ${item.message}`, 'en')),
      quad(result, rdfs('label'), literal(RULES[item.rule], 'en')),
    );
  }
  return quads;
}
