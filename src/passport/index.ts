/**
 * `@acme/identity/passport`: a Passport strategy for signing people in with the service, on the
 * SDK's own OIDC helper (PKCE S256, state, nonce, `iss`, the ID token checked, the service's
 * `claims` parameter checked against the live `acme_claims_supported` before the redirect).
 * Passport is not imported: Passport calls any object with `name` and `authenticate`.
 *
 * @example
 * ```ts
 * import passport from 'passport';
 * import { AcmeIdentityStrategy } from '@acme/identity/passport';
 *
 * passport.use(new AcmeIdentityStrategy(
 *   { authUrl, clientId, redirectUri, clientAuthentication: { method: 'client_secret_basic', clientSecret },
 *     signIn: { claims: { acme: ['acmeidentity.name'] } } },
 *   async ({ claims }) => ({ id: claims.sub, name: readClaim(claims, 'acmeidentity.name') }),
 * ));
 * app.get('/login', passport.authenticate('acme-identity'));
 * app.get('/callback', passport.authenticate('acme-identity', { failureRedirect: '/login' }), (req, res) => res.redirect('/'));
 * ```
 * @module
 */
import { ConfigurationError, OidcError } from '../errors/index.js';
import {
  createOidcClient,
  type FinishedSignIn,
  type OidcClient,
  type OidcClientOptions,
  type OidcTransaction,
  type SignInParams,
} from '../oidc/index.js';

/** Where a sign-in's transaction waits for its callback. */
export interface TransactionStore {
  set(request: PassportRequest, state: string, transaction: OidcTransaction): void | Promise<void>;
  /** The transaction of `state`, removed (a callback uses it once). */
  take(request: PassportRequest, state: string): OidcTransaction | undefined | Promise<OidcTransaction | undefined>;
}

/** The parts of an Express request the strategy reads. */
export interface PassportRequest {
  readonly originalUrl?: string;
  readonly url?: string;
  /** express-session's session: an object the strategy keeps its transactions on. */
  readonly session?: object;
}

/** A session as the strategy uses it. */
type Session = Record<string, unknown> & { save?(callback: (error?: unknown) => void): void };

export interface AcmeIdentityStrategyOptions extends OidcClientOptions {
  /** What each sign-in asks for (scope, claims, ruleset…), or a function of the request. @default { scope: ['openid'] } */
  signIn?: SignInParams | ((request: PassportRequest) => SignInParams | Promise<SignInParams>);
  /**
   * When to call the userinfo endpoint after the callback, as `finishSignIn`'s option: when the ID
   * token lacks a claim the sign-in asked for (`'missing'`), always (`true`) or never (`false`).
   * @default 'missing'
   */
  userinfo?: boolean | 'missing';
  /** Where transactions wait. @default the session (`req.session`, from express-session), under `acme-identity` */
  transactionStore?: TransactionStore;
  /** The strategy's name in `passport.authenticate(name)`. @default 'acme-identity' */
  name?: string;
}

/** Turns a finished sign-in into your user; `false` (or undefined) refuses it. */
export type VerifyFunction = (result: FinishedSignIn, request: PassportRequest) => unknown | Promise<unknown>;

/** Keeps transactions in `req.session['acme-identity']`, by state: several tabs may sign in at once. */
const sessionStore: TransactionStore = {
  set(request, state, transaction) {
    const session = requireSession(request);
    session['acme-identity'] = { ...(session['acme-identity'] as Record<string, OidcTransaction> | undefined), [state]: transaction };
  },
  take(request, state) {
    const pending = requireSession(request)['acme-identity'] as Record<string, OidcTransaction> | undefined;
    // Its own keys only: a callback's state of `constructor` or `__proto__` names no transaction.
    if (pending === undefined || !Object.hasOwn(pending, state)) return undefined;
    const transaction = pending[state];
    delete pending[state];
    return transaction;
  },
};

function requireSession(request: PassportRequest): Session {
  if (typeof request.session !== 'object' || request.session === null)
    throw new ConfigurationError(
      'transactionStore',
      'the strategy keeps the sign-in in req.session: add express-session before passport, or give a transactionStore',
    );
  return request.session as Session;
}

/** What Passport adds to the strategy when it runs it. */
interface PassportActions {
  success(user: unknown, info?: unknown): void;
  fail(challenge?: unknown, status?: number): void;
  redirect(url: string, status?: number): void;
  error(error: unknown): void;
}

/** The actions Passport gave the object it runs (`Object.create(strategy)` plus them). */
function actionsOf(strategy: object): PassportActions {
  const actions: Partial<PassportActions> = strategy;
  if (
    typeof actions.success !== 'function' ||
    typeof actions.fail !== 'function' ||
    typeof actions.redirect !== 'function' ||
    typeof actions.error !== 'function'
  )
    throw new TypeError('AcmeIdentityStrategy runs through passport.authenticate(), which gives it success, fail, redirect and error');
  return {
    success: actions.success.bind(strategy),
    fail: actions.fail.bind(strategy),
    redirect: actions.redirect.bind(strategy),
    error: actions.error.bind(strategy),
  };
}

/**
 * The service's OpenID Connect sign-in as a Passport strategy. (Its fields are not `#private`:
 * Passport runs a strategy through `Object.create(strategy)`, which `#` fields do not survive.)
 * @example
 * ```ts
 * passport.use(new AcmeIdentityStrategy({ authUrl, clientId, redirectUri, clientAuthentication }, ({ claims }) => ({ id: claims.sub })));
 * app.get('/login', passport.authenticate('acme-identity'));
 * ```
 */
export class AcmeIdentityStrategy {
  readonly name: string;
  private readonly oidc: OidcClient;
  private readonly options: AcmeIdentityStrategyOptions;
  private readonly verify: VerifyFunction;
  private readonly store: TransactionStore;

  /** @throws {ConfigurationError} for a missing option or verify function. */
  constructor(options: AcmeIdentityStrategyOptions, verify: VerifyFunction) {
    if (typeof verify !== 'function') throw new ConfigurationError('verify', 'must be a function from the finished sign-in to your user');
    this.oidc = createOidcClient(options);
    this.options = options;
    this.verify = verify;
    this.store = options.transactionStore ?? sessionStore;
    this.name = options.name ?? 'acme-identity';
  }

  /** Called by Passport: the callback when the request carries one, else the redirect to the service. */
  authenticate(request: PassportRequest): void {
    const self = actionsOf(this);
    const params = new URL(request.originalUrl ?? request.url ?? '/', 'http://callback.invalid').searchParams;
    const state = params.get('state');
    const run =
      state !== null && (params.has('code') || params.has('error')) ? this.finish(self, request, params, state) : this.start(self, request);
    run.catch((error: unknown) => self.error(error));
  }

  /** The first leg: the transaction kept, the person sent to the service. */
  private async start(self: PassportActions, request: PassportRequest): Promise<void> {
    const signIn = typeof this.options.signIn === 'function' ? await this.options.signIn(request) : this.options.signIn;
    const { url, transaction } = await this.oidc.startSignIn(signIn);
    await this.store.set(request, transaction.state, transaction);
    // Saved before the redirect: a session store that writes late would lose the race with the callback.
    const session = request.session as Session | undefined;
    const save = session?.save;
    if (typeof save === 'function')
      await new Promise<void>((resolve, reject) => save.call(session, (error) => (error ? reject(error) : resolve())));
    self.redirect(url.href);
  }

  /** The second leg: the callback checked and exchanged, the person handed to your verify function. */
  private async finish(self: PassportActions, request: PassportRequest, params: URLSearchParams, state: string): Promise<void> {
    const transaction = await this.store.take(request, state);
    if (!transaction) {
      self.fail(
        { message: 'ERR_OIDC_STATE: no sign-in of this browser waits for this callback (expired, finished, or another browser)' },
        400,
      );
      return;
    }
    let result: FinishedSignIn;
    try {
      result = await this.oidc.finishSignIn(params, transaction, { userinfo: this.options.userinfo ?? 'missing' });
    } catch (error) {
      // The person cancelled, or the service refused: a failure of the sign-in, for failureRedirect.
      if (error instanceof OidcError && (error.code === 'ERR_OIDC_AUTHORIZATION' || error.code === 'ERR_OIDC_STATE')) {
        self.fail({ message: `${error.code}: ${error.message}`, code: error.code }, 401);
        return;
      }
      throw error;
    }
    const user = await this.verify(result, request);
    if (user === false || user === undefined || user === null) self.fail({ message: 'refused by the verify function' }, 401);
    else self.success(user, { claims: result.claims });
  }
}

export type { FinishedSignIn, OidcTransaction, SignInParams } from '../oidc/index.js';
export { readClaim } from '../claims/decoders.js';
export { ConfigurationError, OidcError } from '../errors/index.js';
