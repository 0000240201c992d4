import type { ChangeEvent, RevisionsTable } from '../db/tables.js';

/** The event a revision's action is, in the past tense the feed and webhooks use. */
export const EVENT_OF_ACTION: Readonly<Record<RevisionsTable['action'], ChangeEvent>> = {
  create: 'created',
  update: 'updated',
  submit: 'submitted',
  approve: 'approved',
  reject: 'rejected',
  'request-changes': 'changes-requested',
  deprecate: 'deprecated',
  remove: 'removed',
};
