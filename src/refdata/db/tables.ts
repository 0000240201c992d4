import type { Generated } from 'kysely';
import type { SessionsTable } from '../../platform/web/sessions.js';

export const STATUSES = [
  'Draft',
  'Submitted',
  'Approved',
  'Rejected',
  'Deprecated',
  'ExternallyManaged',
] as const;
export type Status = (typeof STATUSES)[number];

export interface ResourcesTable {
  id: Generated<number>;
  iri: string;
  family: string;
  status: Status;
  name: string;
  name_normalized: string;
  library_key: string;
  /** Where a family's names are unique within a library beside it ('' for most). */
  name_scope: Generated<string>;
  parent_iri: string | null;
  replaces_iri: string | null;
  /** The family's JSON body as last saved. */
  body: string;
  /** The language of its name and description: its library's default (BCP 47). */
  language: Generated<string>;
  /** Counts every change; the ETag is made from it. */
  version: number;
  created_by: string;
  created_at: number;
  updated_by: string;
  updated_at: number;
}

/** A resource's superclass (`subClassOf`, `superEntity`), one row per link, kept with its body. */
export interface GeneralizationsTable {
  resource_id: number;
  parent_iri: string;
}

export interface RevisionsTable {
  id: Generated<number>;
  resource_id: number;
  version: number;
  action:
    | 'create'
    | 'update'
    | 'submit'
    | 'approve'
    | 'reject'
    | 'request-changes'
    | 'deprecate'
    | 'remove';
  status: Status;
  actor: string;
  justification: string;
  body: string;
  created_at: number;
}

/** Resources removed while Draft (values a picklist no longer lists); their revisions stay. */
export interface RemovedResourcesTable {
  resource_id: number;
  iri: string;
  family: string;
  parent_iri: string | null;
  removed_by: string;
  removed_at: number;
}

/** Each change to a resource, in order, for the instances' search indexes to follow. */
export interface SearchChangesTable {
  seq: Generated<number>;
  resource_id: number;
  changed_at: number;
}

export interface SearchStateTable {
  id: number;
  state: 'available' | 'rebuilding' | 'down';
  changed_at: number;
  /** When a rebuild of every instance's index was last asked for. */
  rebuild_requested_at: number;
}

/**
 * How far an external SPARQL store holds the published view, and who keeps it
 * so (one row). `synced_at` 0, or a `store` other than the one configured, means a
 * resynchronisation from scratch is due.
 */
/** This database's name, drawn once (migration 0018): one row, id 1. */
export interface DatabaseIdentityTable {
  id: number;
  token: string;
}

export interface SparqlStoreSyncTable {
  id: number;
  /** The Graph Store address the position is about. */
  store: string;
  /** Every change up to this position in `search_changes` is in the store. */
  position: number;
  /** When the position last moved (or a turn found nothing to do). */
  synced_at: number;
  /** The instance (or command) writing to the store until `lease_until`. */
  holder: string | null;
  lease_until: number;
  /** When a resynchronisation from scratch was last asked for (the command). */
  resync_requested_at: number;
  /** When the last one began. */
  resynced_at: number;
}

/** What happened to a resource, as the change feed and webhooks name it. */
export const CHANGE_EVENTS = [
  'created',
  'updated',
  'submitted',
  'approved',
  'rejected',
  'changes-requested',
  'deprecated',
  'removed',
] as const;
export type ChangeEvent = (typeof CHANGE_EVENTS)[number];

/**
 * One per revision, written with it: the change feed's members and the
 * webhooks' outbox (`fanned_out` 0 until the dispatcher has made its deliveries).
 */
export interface ChangeEventsTable {
  id: Generated<number>;
  revision_id: number;
  resource_id: number;
  iri: string;
  family: string;
  /** The resource's library at that version ('' for none). */
  library_key: string;
  event: ChangeEvent;
  status: Status;
  version: number;
  actor: string;
  at: number;
  /** When the resource was created. */
  created_at: number;
  fanned_out: Generated<number>;
}

export type WebhookState = 'active' | 'paused' | 'disabled';

export interface WebhooksTable {
  id: Generated<number>;
  /** The subject who made it; only they see and change it. */
  owner: string;
  url: string;
  description: string;
  /** JSON arrays: the events, library IRIs and family keys it wants; empty means all. */
  events: string;
  libraries: string;
  families: string;
  /** With the service's webhook key, gives the signing secret (webhooks/secrets.ts). */
  secret_salt: string;
  state: WebhookState;
  disabled_reason: string | null;
  disabled_at: number | null;
  created_at: number;
  updated_at: number;
}

export type DeliveryState = 'pending' | 'sending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  event_id: number;
  resource_id: number;
  /** The JSON body sent, the same on every attempt. */
  payload: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number;
  /** While `sending`: when another instance may take it over. */
  lease_until: number;
  created_at: number;
  finished_at: number | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  /** JSON: the headers sent (the signature, never the secret). */
  request_headers: string;
  response_excerpt: string;
}

/** Who a subject is, as their identity provider last said when they signed in. */
/** A person's token for the API (GitLab's personal access tokens); only its hash is kept. */
export interface PersonalAccessTokensTable {
  id: Generated<number>;
  token_hash: string;
  /** Whose it is: the actor their revisions name. */
  subject: string;
  name: string;
  /** The roles it carries, space-separated: at most the person's when it was made. */
  roles: string;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export interface PeopleTable {
  subject: string;
  name: string;
  username: string | null;
  /** Where mail reaches them, when the provider gave a verified address. */
  email: string | null;
  /** Their refdata roles when last seen, space-separated: who may be told of what. */
  roles: Generated<string>;
  updated_at: number;
}

/** What was submitted together and is reviewed as one (docs/review.md). */
export interface PackagesTable {
  id: Generated<number>;
  name: string;
  library_key: string;
  submitted_by: string;
  submitted_at: number;
}

/** A resource's package: one at most, from its first submission on. */
export interface PackageItemsTable {
  resource_id: number;
  package_id: number;
}

/** A comment on a submission (a resource) or on a package. */
export interface CommentsTable {
  id: Generated<number>;
  resource_id: number | null;
  package_id: number | null;
  author: string;
  text: string;
  created_at: number;
  edited_at: number | null;
}

/** One entry of a person's inbox. */
export interface NotificationsTable {
  id: Generated<number>;
  recipient: string;
  event: string;
  actor: string;
  iri: string | null;
  package_id: number | null;
  title: string;
  text: string;
  created_at: number;
  read_at: number | null;
}

/** How a person wants to hear of one event (1 yes, 0 no); no row: the default. */
export interface NotificationSettingsTable {
  subject: string;
  event: string;
  inbox: number;
  email: number;
}

/** A mail waiting to be sent, or sent, or given up on. */
export interface MailOutboxTable {
  id: Generated<number>;
  recipient: string;
  subject: string;
  text: string;
  state: 'pending' | 'sent' | 'failed';
  attempts: Generated<number>;
  due_at: number;
  lease_until: Generated<number>;
  error: string | null;
  created_at: number;
  sent_at: number | null;
}

/** refdata's tables as Kysely sees them; each migration that adds a table adds it here. */
export interface RefdataTables {
  sessions: SessionsTable;
  resources: ResourcesTable;
  generalizations: GeneralizationsTable;
  revisions: RevisionsTable;
  removed_resources: RemovedResourcesTable;
  search_changes: SearchChangesTable;
  search_state: SearchStateTable;
  people: PeopleTable;
  personal_access_tokens: PersonalAccessTokensTable;
  packages: PackagesTable;
  package_items: PackageItemsTable;
  comments: CommentsTable;
  notifications: NotificationsTable;
  notification_settings: NotificationSettingsTable;
  mail_outbox: MailOutboxTable;
  sparql_store_sync: SparqlStoreSyncTable;
  database_identity: DatabaseIdentityTable;
  change_events: ChangeEventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  import_jobs: ImportJobsTable;
  releases: ReleasesTable;
  release_members: ReleaseMembersTable;
  release_files: ReleaseFilesTable;
  release_changes: ReleaseChangesTable;
  import_files: ImportFilesTable;
}

export type ImportState = 'queued' | 'checking' | 'writing' | 'done' | 'failed';

/** A bulk import (imports/jobs.ts): its settings, progress, outcome and report. */
export interface ImportJobsTable {
  id: Generated<number>;
  library_iri: string;
  owner: string;
  dry_run: number;
  mode: 'all-or-nothing' | 'valid-only';
  encoding: string | null;
  state: ImportState;
  /** Of the phase in progress (checking or writing): how many, and how many done. */
  total: Generated<number>;
  done: Generated<number>;
  phase_started_at: number | null;
  lease_until: Generated<number>;
  attempts: Generated<number>;
  /** JSON: each file's name, encoding, records and tables. */
  files: Generated<string>;
  /** JSON: created, updated, unchanged and refused. */
  counts: string | null;
  /** JSON: the report's lines. */
  report: string | null;
  /** JSON: the first refused lines of the report, which a status lists. */
  refused_lines: string | null;
  /** 1 once the import's writes were committed. */
  written: Generated<number>;
  error: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface ImportFilesTable {
  id: Generated<number>;
  job_id: number;
  name: string;
  bytes: Buffer;
}

export interface ReleasesTable {
  id: Generated<number>;
  iri: string;
  library_iri: string;
  version: string;
  sequence: number;
  notes: string;
  released_by: string;
  released_at: number;
  resource_count: Generated<number>;
}

export interface ReleaseMembersTable {
  release_id: number;
  resource_id: number;
  revision_id: number;
  iri: string;
  family: string;
  library_key: string;
  parent_iri: string | null;
  created_by: string;
  created_at: number;
  replaced_by: string | null;
}

export interface ReleaseFilesTable {
  release_id: number;
  format: string;
  sha256: string;
  byte_size: number;
  gzipped: Buffer;
}

export interface ReleaseChangesTable {
  release_id: number;
  /** JSON: the summary of the changes from the release before (releases/differences.ts). */
  summary: string;
}
