import { badParameter, gitlabError, recordInvalidError } from '../api/gitlab-errors.js';
import type { Parameters } from '../api/parameters.js';
import { parseBoolean } from '../api/parameters.js';
import { RecordInvalid } from '../record-invalid.js';
import {
  isNotificationLevel,
  NOTIFICATION_EVENTS,
  type NotificationChanges,
  type NotificationEvent,
} from './settings.js';

/**
 * The changes a PUT asks for: only the parameters actually sent, checked in
 * GitLab's order (parameter types first, then the level's value) and all before
 * anything is written, so a refused request changes nothing.
 */
export function notificationChanges(parameters: Parameters): NotificationChanges {
  const events: Partial<Record<NotificationEvent, boolean>> = {};
  const invalid: string[] = [];
  for (const event of NOTIFICATION_EVENTS) {
    const value = parseBoolean(parameters[event]);
    if (value === 'invalid') invalid.push(event);
    else if (value !== undefined) events[event] = value;
  }
  const rawLevel = parameters.level;
  if (rawLevel !== undefined && rawLevel !== null && typeof rawLevel === 'object') {
    invalid.unshift('level');
  }
  if (invalid.length > 0) {
    throw badParameter(invalid.map((name) => `${name} is invalid`).join(', '));
  }

  const changes: NotificationChanges = Object.keys(events).length > 0 ? { events } : {};
  if (rawLevel === undefined || rawLevel === null) return changes;
  const level = String(rawLevel);
  if (level.includes('\u0000')) throw badParameter('level is invalid');
  if (level === '') throw recordInvalidError(new RecordInvalid({ level: ["can't be blank"] }));
  // Rails' enum refuses an unknown value with exactly these words.
  if (!isNotificationLevel(level)) throw gitlabError(400, `'${level}' is not a valid level`);
  return { ...changes, level };
}
