import type { VisibilityLevel } from '../db/tables.js';

/** GitLab's visibility levels and their names (API v4 speaks names, v3 numbers). */
export const VISIBILITY_LEVELS = { private: 0, internal: 10, public: 20 } as const satisfies Record<
  string,
  VisibilityLevel
>;
export type VisibilityName = keyof typeof VISIBILITY_LEVELS;

export function visibilityName(level: VisibilityLevel): VisibilityName {
  return level === 20 ? 'public' : level === 10 ? 'internal' : 'private';
}

export function isVisibilityLevel(value: number): value is VisibilityLevel {
  return value === 0 || value === 10 || value === 20;
}

/** GitLab's member access levels. */
export const ACCESS_LEVELS = {
  guest: 10,
  reporter: 20,
  developer: 30,
  master: 40,
  owner: 50,
} as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[keyof typeof ACCESS_LEVELS];
