import { DataFactory, type Quad } from 'n3';
import type { Refdata } from '../context.js';
import { rdf, rdfs } from '../rdf/vocabulary.js';
import type { Finding, QualityReport } from './report.js';
import { RULES, ruleIri } from './rules.js';

const { namedNode, literal, quad, blankNode } = DataFactory;
const SH = 'http://www.w3.org/ns/shacl#';
const sh = (local: string) => namedNode(`${SH}${local}`);

/**
 * Where a finding is mended: a Draft's form, or the page of anything else
 * (where an Approved resource is replaced). Only for IRIs this service serves.
 */
export function fixUrl(refdata: Refdata, item: Finding): string | undefined {
  if (!item.resource.startsWith(`${refdata.iriBase}/`)) return undefined;
  if (item.status === 'Draft')
    return `${refdata.publicUrl}/authoring/edit?${new URLSearchParams({ iri: item.resource })}`;
  return `${refdata.publicUrl}${item.resource.slice(refdata.iriBase.length)}`;
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
      quad(result, sh('focusNode'), namedNode(item.resource)),
      quad(result, sh('resultSeverity'), sh(item.severity === 'error' ? 'Violation' : 'Warning')),
      quad(result, sh('sourceShape'), namedNode(ruleIri(item.rule))),
      quad(result, sh('resultMessage'), literal(`${item.name} ${item.message}`, 'en')),
      quad(result, rdfs('label'), literal(RULES[item.rule], 'en')),
    );
  }
  return quads;
}
