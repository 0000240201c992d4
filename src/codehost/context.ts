import type { Kysely } from 'kysely';
import { RetryPolicy } from '../platform/background/retry-policy.js';
import { type Config, type ServiceConfig, serviceSettings } from '../platform/config.js';
import { OutboundPolicy } from '../platform/http/outbound.js';
import { CounterStore } from '../platform/security/counters.js';
import { PasskeyStore, relyingPartyOf } from './accounts/passkeys.js';
import { PasswordHasher } from './accounts/passwords.js';
import { PersonalAccessTokenStore } from './accounts/personal-access-tokens.js';
import { PasswordSignIn } from './accounts/sign-in.js';
import { TwoFactorStore } from './accounts/two-factor.js';
import { UserStore } from './accounts/users.js';
import {
  type CodehostSettings,
  DEFAULT_BACKCHANNEL_RETRY_SCHEDULE,
  DEFAULT_REGISTRATION,
  DEFAULT_RESOURCE_TOKEN_LIFETIME_SECONDS,
} from './config.js';
import type { CodehostTables } from './db/tables.js';
import { AccessPolicy } from './namespaces/access.js';
import { GroupStore } from './namespaces/groups.js';
import { MemberStore } from './namespaces/members.js';
import { ProjectStore } from './namespaces/projects.js';
import { NotificationSettingStore } from './notifications/settings.js';
import { ApplicationStore } from './oauth/applications.js';
import { ClientMetadataDocuments } from './oauth/client-metadata-documents.js';
import { DeviceGrantStore } from './oauth/device-grants.js';
import type { Grant } from './oauth/grants/grant.js';
import { GRANTS } from './oauth/grants/index.js';
import { ResourceServerStore } from './oauth/resource-servers.js';
import { TokenStore } from './oauth/tokens.js';
import { BackchannelLogout } from './oidc/backchannel-logout.js';
import { SigningKeyStore } from './oidc/signing-keys.js';
import { codehostSessions, type SessionStore } from './web/sessions.js';

/** Everything codehost's routes work with, built once per server. */
export interface Codehost {
  db: Kysely<CodehostTables>;
  config: ServiceConfig;
  platform: Config;
  counters: CounterStore;
  hasher: PasswordHasher;
  users: UserStore;
  signIn: PasswordSignIn;
  twoFactor: TwoFactorStore;
  passkeys: PasskeyStore;
  sessions: SessionStore;
  applications: ApplicationStore;
  tokens: TokenStore;
  deviceGrants: DeviceGrantStore;
  /** Clients known by the address of their metadata document. */
  metadataDocuments: ClientMetadataDocuments;
  /** The APIs codehost issues JWT access tokens for (RFC 8707). */
  resourceServers: ResourceServerStore;
  /** codehost's own settings the routes read. */
  settings: OAuthSettings;
  signingKeys: SigningKeyStore;
  /** Sessions' `sid`s, the relying parties told of each, and their logout tokens. */
  backchannelLogout: BackchannelLogout;
  /** The token endpoint's grants, by `grant_type`. */
  grants: ReadonlyMap<string, Grant>;
  personalAccessTokens: PersonalAccessTokenStore;
  groups: GroupStore;
  projects: ProjectStore;
  members: MemberStore;
  access: AccessPolicy;
  notificationSettings: NotificationSettingStore;
}

type OAuthSettings = Pick<
  CodehostSettings,
  'backchannelRetry' | 'resourceTokenLifetimeSeconds' | 'registration'
>;

/** codehost's settings, or their defaults where it is built without them (some tests). */
function codehostSettingsOf(platform: Config): OAuthSettings {
  const settings = serviceSettings<CodehostSettings | undefined>(platform, 'codehost');
  return {
    backchannelRetry:
      settings?.backchannelRetry ??
      (RetryPolicy.parse(DEFAULT_BACKCHANNEL_RETRY_SCHEDULE) as RetryPolicy),
    resourceTokenLifetimeSeconds:
      settings?.resourceTokenLifetimeSeconds ?? DEFAULT_RESOURCE_TOKEN_LIFETIME_SECONDS,
    registration: settings?.registration ?? DEFAULT_REGISTRATION,
  };
}

export function createCodehost(
  db: Kysely<CodehostTables>,
  config: ServiceConfig,
  platform: Config,
  grants: ReadonlyMap<string, Grant> = GRANTS,
): Codehost {
  const counters = new CounterStore(db);
  const hasher = new PasswordHasher(platform.security.passwordHash);
  const users = new UserStore(db, hasher);
  const groups = new GroupStore(db);
  const members = new MemberStore(db);
  const access = new AccessPolicy(db, groups, members);
  const signingKeys = new SigningKeyStore(db);
  // Every address a user gives codehost to post to goes through this one policy.
  const outbound = OutboundPolicy.of(platform);
  const settings = codehostSettingsOf(platform);
  const tokens = new TokenStore(db, {
    refreshReuseGraceMs: platform.security.refreshReuseGraceSeconds * 1000,
    resourceTokenLifetimeSeconds: settings.resourceTokenLifetimeSeconds,
  });
  return {
    db,
    config,
    platform,
    counters,
    hasher,
    users,
    signIn: new PasswordSignIn(users, hasher, counters, platform.security),
    twoFactor: new TwoFactorStore(db),
    passkeys: new PasskeyStore(db, relyingPartyOf(config.publicUrl)),
    sessions: codehostSessions(db, {
      lifetimeMs: platform.security.sessionLifetimeSeconds * 1000,
      secureCookie: config.publicUrl.startsWith('https:'),
    }),
    applications: new ApplicationStore(db, outbound),
    tokens,
    deviceGrants: new DeviceGrantStore(db, Date.now, tokens),
    resourceServers: new ResourceServerStore(db),
    metadataDocuments: new ClientMetadataDocuments(db, outbound, counters),
    settings,
    signingKeys,
    backchannelLogout: new BackchannelLogout(
      db,
      signingKeys,
      config.publicUrl,
      outbound,
      settings.backchannelRetry,
    ),
    grants,
    personalAccessTokens: new PersonalAccessTokenStore(db),
    groups,
    projects: new ProjectStore(db),
    members,
    access,
    notificationSettings: new NotificationSettingStore(db, access),
  };
}
