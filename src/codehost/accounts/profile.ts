import type { Kysely } from 'kysely';
import { controlCharacterIn } from '../../platform/one-line-text.js';
import type { FieldErrors } from '../../platform/web/forms.js';
import type { CodehostTables } from '../db/tables.js';
import { normalizeEmail, type UserRow } from './users.js';

/** The profile fields a user edits themself (GitLab's profile form). */
export interface ProfileInput {
  name: string;
  public_email: string;
  website_url: string;
  location: string;
  bio: string;
  skype: string;
  linkedin: string;
  twitter: string;
}

export const PROFILE_FIELDS = [
  'name',
  'public_email',
  'website_url',
  'location',
  'bio',
  'skype',
  'linkedin',
  'twitter',
] as const satisfies readonly (keyof ProfileInput)[];

/** GitLab's column limits: 255 for each text, and for the bio too. */
export const PROFILE_MAX_LENGTH = 255;

export function profileOf(user: UserRow): ProfileInput {
  return {
    name: user.name,
    public_email: user.public_email ?? '',
    website_url: user.website_url,
    location: user.location,
    bio: user.bio,
    skype: user.skype,
    linkedin: user.linkedin,
    twitter: user.twitter,
  };
}

/** A web address people may follow from the profile: http(s) only, never `javascript:`. */
function isWebAddress(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * What is wrong with a submitted profile, field by field (empty when nothing).
 * The public address must be one of the user's own, as GitLab requires.
 */
export function profileErrors(input: ProfileInput, ownEmails: readonly string[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const name of PROFILE_FIELDS) {
    if (input[name].length > PROFILE_MAX_LENGTH) {
      errors[name] = `Keep this to ${PROFILE_MAX_LENGTH} characters or fewer.`;
    }
  }
  if (!errors.name && input.name === '') errors.name = 'Enter your name.';
  const control = controlCharacterIn(input.name);
  if (!errors.name && control)
    errors.name = `Your name may not hold control characters (here ${control}): write it on one line.`;
  if (!errors.website_url && input.website_url !== '' && !isWebAddress(input.website_url)) {
    errors.website_url = 'Enter a web address starting with http:// or https://.';
  }
  if (
    input.public_email !== '' &&
    !ownEmails.some((email) => normalizeEmail(email) === normalizeEmail(input.public_email))
  ) {
    errors.public_email = 'Choose one of your own e-mail addresses, or none.';
  }
  return errors;
}

/** Saves a profile that `profileErrors` accepted. */
export async function saveProfile(
  db: Kysely<CodehostTables>,
  userId: number,
  input: ProfileInput,
  now: number,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ ...input, public_email: input.public_email || null, updated_at: now })
    .where('id', '=', userId)
    .execute();
}
