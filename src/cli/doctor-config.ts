/**
 * What `acme-identity doctor` is told: the deployment to check, the settings it checks with, and
 * the client options that change how the SDK talks to it. Shared by doctor.ts, which runs the
 * checks, and the checks that go through the SDK's client (doctor-service.ts).
 */
import type { AcmeIdentityClient, ClientOptions, TimestampFormat, TokenStore } from '../index.js';

export interface DoctorConfig {
  /** The REST base URL (`https://…/api/v1`). */
  baseUrl: string;
  /** The OIDC issuer. @default the origin of baseUrl */
  authUrl?: string | undefined;
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  tenantId?: string | undefined;
  /** The HTTP client. @default globalThis.fetch */
  fetch?: (request: Request) => Promise<Response>;
  /** Per request, in ms. @default 10000 */
  timeoutMs?: number;
  /** The local clock, in ms. @default Date.now */
  now?: () => number;
  /** The `X-Request-Timestamp` format, as the client's option. @default 'unix-seconds' */
  timestampFormat?: Exclude<TimestampFormat, (date: Date) => string> | undefined;
  /**
   * Also walk an identity request's life on the service (for a test tenant): create one for a
   * made-up person (no email sent, a one-hour expiry), read it back, delete it. Nothing is left
   * behind: a failure half-way still deletes what was created, and the report says so. @default false
   */
  journey?: boolean | undefined;
  /** The `purpose` the journey's request names (the spec does not show the allowed values). @default 'identity verification' */
  journeyPurpose?: string | undefined;
  /**
   * The client's other options that change how it reads or writes answers, as your application
   * sets them (`--client-option name=value`, `ACME_CLIENT_OPTIONS`): every check then runs as the
   * SDK would with them.
   */
  clientOptions?: DoctorClientOptions | undefined;
  /** The claim keys your declaration file (`acme-identity types`) declares: the claims line warns only of offered keys it lacks. */
  declaredClaims?: readonly string[] | undefined;
}

/** A client for doctor's checks: its timestamp format, a token store to look into, options over the configured ones. */
export type ClientMaker = (
  timestampFormat: TimestampFormat,
  tokenStore?: TokenStore,
  overrides?: DoctorClientOptions,
) => AcmeIdentityClient;

/** The client options doctor takes from the command line: those that change what goes over the wire or how answers are read. */
export type DoctorClientOptions = Partial<
  Pick<ClientOptions, 'unsetOptionals' | 'correctClockSkew' | 'refreshMarginSeconds' | 'tokenTimeoutMs' | 'maxRetryAfterMs'>
>;

/** The names `DoctorClientOptions` takes, for the command line's check. */
export const DOCTOR_CLIENT_OPTIONS = [
  'unsetOptionals',
  'correctClockSkew',
  'refreshMarginSeconds',
  'tokenTimeoutMs',
  'maxRetryAfterMs',
] as const;
