import type { Generated } from 'kysely';
import type { CounterTables } from '../../platform/security/counters.js';

/** 0 or 1: booleans are stored as integers so both databases read them alike. */
export type Flag = 0 | 1;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  username_normalized: string;
  name: string;
  email: string;
  password_hash: string;
  is_admin: Generated<Flag>;
  state: Generated<'active' | 'blocked'>;
  bio: Generated<string>;
  location: Generated<string>;
  skype: Generated<string>;
  linkedin: Generated<string>;
  twitter: Generated<string>;
  website_url: Generated<string>;
  projects_limit: Generated<number>;
  can_create_group: Generated<Flag>;
  external: Generated<Flag>;
  theme_id: Generated<number>;
  color_scheme_id: Generated<number>;
  otp_secret: string | null;
  otp_last_step: number | null;
  created_at: number;
  updated_at: number;
  confirmed_at: number | null;
  current_sign_in_at: number | null;
  last_sign_in_at: number | null;
  /** Where notifications go; NULL means the primary e-mail. */
  notification_email: string | null;
  public_email: string | null;
  /** 1 when the password was chosen by someone else and its owner should replace it. */
  password_change_required: Generated<Flag>;
  /** How many passkeys the user has: any makes two-factor authentication on. */
  passkey_count: Generated<number>;
  /** When an administrator turned off every second factor; NULL once the user has seen to it. */
  second_factors_removed_at: number | null;
}

export interface EmailsTable {
  id: Generated<number>;
  user_id: number;
  email: string;
  email_normalized: string;
  created_at: number;
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: number | null;
}

export interface SessionsTable {
  id_hash: string;
  user_id: number | null;
  data: string;
  expires_at: number;
  user_agent: Generated<string>;
  ip_address: Generated<string>;
  created_at: Generated<number>;
  last_used_at: Generated<number>;
}

/** A signed-in browser session's OpenID Connect session ID (`sid`). */
export interface OidcSessionsTable {
  sid: string;
  user_id: number;
  session_id_hash: string;
  created_at: number;
  /** When its browser session was found gone and its relying parties told. */
  ended_at: number | null;
}

/** A relying party that received an ID token naming a session. */
export interface OidcSessionClientsTable {
  sid: string;
  application_id: number;
  created_at: number;
}

/** A logout token on its way to a relying party's back-channel logout URI. */
export interface BackchannelLogoutDeliveriesTable {
  id: Generated<number>;
  application_id: number;
  user_id: number;
  sid: string;
  jti: string;
  attempts: Generated<number>;
  next_attempt_at: number;
  /** Until when an instance's claim holds the delivery (0: nobody's). */
  lease_until: Generated<number>;
  delivered_at: number | null;
  failed_at: number | null;
  last_error: string | null;
  created_at: number;
}

/** A WebAuthn credential: its public key (COSE, base64url) and signature counter only. */
export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** base64url, as the browser reports it. */
  credential_id: string;
  public_key: string;
  counter: number;
  /** The authenticator's transports (`internal hybrid`), hints for the browser. */
  transports: Generated<string>;
  backed_up: Generated<Flag>;
  created_at: number;
  last_used_at: number | null;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  scopes: string;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

export interface OauthApplicationsTable {
  id: Generated<number>;
  uid: string;
  secret_hash: string;
  name: string;
  redirect_uri: string;
  /** Where RP-initiated logout may return to, one per line ('' for none). */
  post_logout_redirect_uris: Generated<string>;
  scopes: string;
  confidential: Flag;
  /** 1 when devices may ask for tokens with RFC 8628's device authorization grant. */
  device_authorization_grant: Generated<Flag>;
  /** Where logout tokens are posted (OpenID Connect Back-Channel Logout); '' for none. */
  backchannel_logout_uri: Generated<string>;
  /** 1 when the relying party needs `sid` in logout tokens (and ID tokens). */
  backchannel_logout_session_required: Generated<Flag>;
  /** 1 for a relying party the operator set up (a trusted client), not a user. */
  configured_by_operator: Generated<Flag>;
  /** The user who registered it; NULL for a client that registered itself. */
  owner_id: number | null;
  /** How it came to be: made by a user or the operator, by itself (RFC 7591), or from its metadata's URL. */
  registration: Generated<ApplicationRegistration>;
  /** RFC 7592's registration access token (its hash), for a client that registered itself. */
  registration_token_hash: string | null;
  /** Its home page (RFC 7591 `client_uri`), shown on the consent page; '' for none. */
  client_uri: Generated<string>;
  /** When its metadata document was last read (a Client ID Metadata Document client). */
  metadata_fetched_at: number | null;
  created_at: number;
  updated_at: number;
}

export type ApplicationRegistration = 'owner' | 'dynamic' | 'metadata-document';

/** An API codehost issues JWT access tokens for (RFC 8707, RFC 9068). */
export interface OauthResourceServersTable {
  id: Generated<number>;
  /** Its resource identifier: an absolute URI without a fragment, the tokens' `aud`. */
  identifier: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface OauthAccessGrantsTable {
  id: Generated<number>;
  token_hash: string;
  resource_owner_id: number;
  application_id: number;
  redirect_uri: string;
  scopes: string;
  code_challenge: string | null;
  /** The OpenID Connect request's nonce, echoed in the ID token. */
  nonce: string | null;
  /** When the user signed in (epoch ms), for the ID token's auth_time. */
  auth_time: number | null;
  /** How they signed in (RFC 8176 values, space-separated), for the ID token's amr. */
  amr: string | null;
  /** The OpenID Connect session it was approved in, for the ID token's sid. */
  sid: string | null;
  /** RFC 8707: the resource server the code's token is for; NULL for codehost's own API. */
  resource: string | null;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/** A device authorization request (RFC 8628), from the device's request to its token. */
export interface OauthDeviceGrantsTable {
  id: Generated<number>;
  device_code_hash: string;
  user_code_hash: string;
  application_id: number;
  scopes: string;
  /** Who approved or denied it; NULL while it waits. */
  resource_owner_id: number | null;
  /** When the approving user signed in (epoch ms), for the ID token's auth_time. */
  auth_time: number | null;
  amr: string | null;
  sid: string | null;
  /** RFC 8707: the resource server the device's token is for; NULL for codehost's own API. */
  resource: string | null;
  approved_at: number | null;
  denied_at: number | null;
  /** When the device's token was issued: a device code gives one token, once. */
  used_at: number | null;
  interval_seconds: number;
  last_polled_at: number | null;
  expires_at: number;
  created_at: number;
}

export interface OauthAccessTokensTable {
  id: Generated<number>;
  token_hash: string;
  refresh_token_hash: string | null;
  resource_owner_id: number;
  application_id: number | null;
  grant_id: number | null;
  scopes: string;
  expires_at: number;
  revoked_at: number | null;
  /** Set with revoked_at when a refresh rotated this token away. */
  rotated_at: number | null;
  /** When this rotated refresh token was used again within the grace window (once only). */
  retried_at: number | null;
  /** RFC 8707: the resource server it is for (a JWT access token); NULL for codehost's own API. */
  resource: string | null;
  created_at: number;
}

/** The OpenID Connect provider's signing keys (private JWKs), shared by every instance. */
export interface OidcSigningKeysTable {
  id: Generated<number>;
  kid: string;
  alg: 'RS256' | 'ES256';
  generation: number;
  public_jwk: string;
  private_jwk: string;
  /** When the key starts signing; it is published from its creation. */
  signs_from: number;
  created_at: number;
}

/** GitLab's visibility levels: private 0, internal 10, public 20. */
export type VisibilityLevel = 0 | 10 | 20;

export interface NamespacesTable {
  id: Generated<number>;
  kind: 'user' | 'group';
  name: string;
  path: string;
  full_path: string;
  full_path_normalized: string;
  full_name: string;
  description: Generated<string>;
  visibility_level: Generated<VisibilityLevel>;
  parent_id: number | null;
  /** The user a personal namespace belongs to; NULL for groups. */
  owner_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface ProjectsTable {
  id: Generated<number>;
  namespace_id: number;
  name: string;
  path: string;
  full_path: string;
  full_path_normalized: string;
  description: Generated<string>;
  visibility_level: Generated<VisibilityLevel>;
  creator_id: number | null;
  created_at: number;
  updated_at: number;
}

export type SourceType = 'group' | 'project';

export interface MembersTable {
  id: Generated<number>;
  user_id: number;
  source_type: SourceType;
  source_id: number;
  access_level: number;
  created_at: number;
  updated_at: number;
}

export interface NotificationSettingsTable {
  id: Generated<number>;
  user_id: number;
  source_type: 'global' | SourceType;
  source_id: number;
  level: number;
  new_note: Generated<Flag>;
  new_issue: Generated<Flag>;
  reopen_issue: Generated<Flag>;
  close_issue: Generated<Flag>;
  reassign_issue: Generated<Flag>;
  new_merge_request: Generated<Flag>;
  reopen_merge_request: Generated<Flag>;
  close_merge_request: Generated<Flag>;
  reassign_merge_request: Generated<Flag>;
  merge_merge_request: Generated<Flag>;
  created_at: number;
  updated_at: number;
}

/** codehost's tables as Kysely sees them; each migration that adds a table adds it here. */
export interface CodehostTables extends CounterTables {
  users: UsersTable;
  emails: EmailsTable;
  recovery_codes: RecoveryCodesTable;
  sessions: SessionsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  oauth_applications: OauthApplicationsTable;
  oauth_resource_servers: OauthResourceServersTable;
  oauth_access_grants: OauthAccessGrantsTable;
  oauth_access_tokens: OauthAccessTokensTable;
  oauth_device_grants: OauthDeviceGrantsTable;
  passkeys: PasskeysTable;
  oidc_sessions: OidcSessionsTable;
  oidc_session_clients: OidcSessionClientsTable;
  backchannel_logout_deliveries: BackchannelLogoutDeliveriesTable;
  oidc_signing_keys: OidcSigningKeysTable;
  namespaces: NamespacesTable;
  projects: ProjectsTable;
  members: MembersTable;
  notification_settings: NotificationSettingsTable;
}
