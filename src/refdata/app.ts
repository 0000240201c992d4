import type { ServiceDefinition } from '../platform/service.js';
import { refdataMigrations } from './db/migrations.js';
import type { RefdataTables } from './db/tables.js';
import { problemDetailsRenderer, registerProblemTypeRoutes } from './problems.js';

export const refdata: ServiceDefinition<RefdataTables> = {
  name: 'refdata',
  title: 'refdata',
  description:
    'Reference-data authoring service: Draft and Submitted resources of twelve families, dereferencing in JSON and RDF, search, and complete IMF SHACL. Errors are RFC 9457 Problem Details (`application/problem+json`) with a `traceId`.',
  apiTags: [{ name: 'problems', description: 'Problem types used in error responses' }],
  migrations: refdataMigrations,
  errorRenderer: (config) => problemDetailsRenderer(config.publicUrl),
  adminCommands: [],
  async registerRoutes(app, { config }) {
    registerProblemTypeRoutes(app, config.publicUrl);
  },
};
