import type { ServiceDefinition } from '../platform/service.js';
import { codehostMigrations } from './db/migrations.js';
import type { CodehostTables } from './db/tables.js';
import { renderGitlabError } from './errors.js';

export const codehost: ServiceDefinition<CodehostTables> = {
  name: 'codehost',
  title: 'codehost',
  description:
    'OAuth 2.0 authorization server and notification-settings API of a code-hosting service, wire-compatible with GitLab (`/oauth/*`, `/api/v3`, `/api/v4`). Errors use GitLab\'s `{"message": ...}` shape.',
  migrations: codehostMigrations,
  errorRenderer: () => renderGitlabError,
  adminCommands: [],
  async registerRoutes() {
    // Accounts, OAuth and the API register here as they are built.
  },
};
