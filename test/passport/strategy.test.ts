/**
 * The Passport strategy's own rules, run as Passport runs it (`Object.create(strategy)` with
 * success, fail, redirect and error) against the fake service, without a browser: what the verify
 * function's answer becomes, which refusals are failed sign-ins and which are errors, where the
 * transactions wait, and what the callback hands over. The whole flow in Chromium, through Express
 * and express-session, is in passport.test.ts.
 */
import { describe, expect, test } from 'vitest';
import {
  AcmeIdentityStrategy,
  type AcmeIdentityStrategyOptions,
  type FinishedSignIn,
  type OidcTransaction,
  type PassportRequest,
  type TransactionStore,
  type VerifyFunction,
} from '../../src/passport/index.js';
import { DEFAULT_OIDC_CLIENT, type FakeServiceOptions } from '../../src/testing/index.js';
import { readClaims } from '../../src/claims/index.js';
import { oidcSetup, REDIRECT } from '../oidc/setup.js';

/** What the strategy called Passport's action with. */
type Outcome = { action: 'success' | 'fail' | 'redirect' | 'error'; args: unknown[] };

/** Runs `strategy.authenticate(request)` as Passport does, and resolves with the action it took. */
function run(strategy: AcmeIdentityStrategy, request: PassportRequest): Promise<Outcome> {
  return new Promise((resolve) => {
    const runner = Object.create(strategy) as AcmeIdentityStrategy & Record<Outcome['action'], (...args: unknown[]) => void>;
    for (const action of ['success', 'fail', 'redirect', 'error'] as const) runner[action] = (...args) => resolve({ action, args });
    runner.authenticate(request);
  });
}

/** A strategy on a fresh fake service; `signIn` runs the first leg and the person's approval, and gives the callback's request. */
async function stage(
  options: Partial<AcmeIdentityStrategyOptions> = {},
  verify: VerifyFunction = ({ claims }) => ({ id: claims.sub }),
  fake: FakeServiceOptions = {},
) {
  const setup = await oidcSetup({ fake });
  const strategy = new AcmeIdentityStrategy(
    { authUrl: setup.service.authUrl, clientId: DEFAULT_OIDC_CLIENT.clientId, redirectUri: REDIRECT, now: setup.now, ...options },
    verify,
  );
  const signIn = async (request: PassportRequest): Promise<PassportRequest> => {
    const started = await run(strategy, request);
    expect(started.action).toBe('redirect');
    const callback = await setup.visit(new URL(String(started.args[0])));
    return { ...request, originalUrl: `${callback.pathname}${callback.search}` };
  };
  return { strategy, signIn };
}

describe('the Passport strategy, as Passport runs it', () => {
  test("the verify function's answer: a user is a success with the claims as info; false, null or undefined is a failed sign-in (401)", async () => {
    for (const answer of [{ id: 'u1' }, 0, false, null, undefined]) {
      const { strategy, signIn } = await stage({}, () => answer);
      const outcome = await run(strategy, await signIn({ session: {} }));
      if (answer === false || answer === null || answer === undefined) {
        expect({ answer, outcome }).toEqual({
          answer,
          outcome: { action: 'fail', args: [{ message: 'refused by the verify function' }, 401] },
        });
      } else {
        expect({ answer, outcome }).toEqual({
          answer,
          outcome: { action: 'success', args: [answer, { claims: expect.objectContaining({ sub: expect.any(String) }) }] },
        });
      }
    }
  });

  test('the callback is read from the URL the browser asked for (originalUrl), not req.url a router or middleware rewrote without its query', async () => {
    const { strategy, signIn } = await stage();
    const callback = await signIn({ session: {} });
    const outcome = await run(strategy, { ...callback, url: '/callback' });
    expect(outcome).toMatchObject({ action: 'success', args: [{ id: expect.any(String) }, { claims: expect.any(Object) }] });
  });

  test('a callback finished once is a failed sign-in (401 ERR_OIDC_STATE) the second time, even from a store that keeps its transactions', async () => {
    // A store of your own that forgets to remove what it hands back: the state is still used once.
    const kept = new Map<string, OidcTransaction>();
    const leaky: TransactionStore = {
      set: (_request, state, transaction) => {
        kept.set(state, transaction);
      },
      take: (_request, state) => kept.get(state),
    };
    const { strategy, signIn } = await stage({ transactionStore: leaky });
    // No session at all: the store given is the one used.
    const callback = await signIn({});
    expect(kept.size).toBe(1);
    expect((await run(strategy, callback)).action).toBe('success');
    const again = await run(strategy, callback);
    expect(again).toEqual({ action: 'fail', args: [{ message: expect.stringMatching(/^ERR_OIDC_STATE: /), code: 'ERR_OIDC_STATE' }, 401] });
  });

  test('a callback no sign-in of this browser waits for is a failed sign-in (400); a sign-in the SDK cannot trust (no ID token) is an error, not a failure', async () => {
    const { strategy, signIn } = await stage();
    const callback = await signIn({ session: {} });
    // Another browser's session: nothing waits there for this state.
    expect(await run(strategy, { ...callback, session: {} })).toEqual({
      action: 'fail',
      args: [{ message: expect.stringMatching(/^ERR_OIDC_STATE: no sign-in of this browser waits/) }, 400],
    });
    const withoutIdToken: typeof fetch = (input, init) =>
      String(input instanceof Request ? input.url : input).endsWith('/oauth/oidc/token')
        ? Promise.resolve(Response.json({ access_token: 'at', token_type: 'Bearer', expires_in: 300 }))
        : fetch(input, init);
    const broken = await stage({ fetch: withoutIdToken });
    const outcome = await run(broken.strategy, await broken.signIn({ session: {} }));
    expect(outcome.action).toBe('error');
    expect(outcome.args[0]).toMatchObject({ name: 'OidcError', code: 'ERR_OIDC_ID_TOKEN' });
  });

  test('a session of null is no session: a ConfigurationError naming transactionStore, through error', async () => {
    const { strategy } = await stage();
    const outcome = await run(strategy, { session: null as never });
    expect(outcome.action).toBe('error');
    expect(outcome.args[0]).toMatchObject({ code: 'ERR_INVALID_CONFIG', option: 'transactionStore' });
  });

  test("a session that saves (express-session's save): saved with the transaction in it before the redirect; a failed save is an error, not a redirect", async () => {
    const { strategy } = await stage();
    const events: string[] = [];
    const session = {
      save(callback: (error?: unknown) => void) {
        events.push(`save ${Object.keys((this as Record<string, unknown>)['acme-identity'] ?? {}).length}`);
        setTimeout(() => {
          events.push('saved');
          callback();
        }, 5);
      },
    };
    const started = await run(strategy, { session });
    events.push(started.action);
    expect(events).toEqual(['save 1', 'saved', 'redirect']);
    const broken = new Error('the session store is down');
    const failing = await run(strategy, { session: { save: (callback: (error?: unknown) => void) => callback(broken) } });
    expect(failing).toEqual({ action: 'error', args: [broken] });
  });

  test('in the session: each sign-in waits under its state (two tabs at once both finish), and a finished one is removed', async () => {
    const { strategy, signIn } = await stage();
    const session: Record<string, unknown> = {};
    const first = await signIn({ session });
    const second = await signIn({ session });
    expect(Object.keys(session['acme-identity'] as object)).toHaveLength(2);
    expect((await run(strategy, second)).action).toBe('success');
    expect((await run(strategy, first)).action).toBe('success');
    expect(session['acme-identity']).toEqual({});
  });

  test('userinfo is called only when asked for: the verify function gets its claims (for the same sub) then, and no userinfo otherwise', async () => {
    for (const asked of [undefined, false, true]) {
      const seen: FinishedSignIn[] = [];
      const { strategy, signIn } = await stage(asked === undefined ? {} : { userinfo: asked }, (result) => {
        seen.push(result);
        return { id: result.claims.sub };
      });
      expect((await run(strategy, await signIn({ session: {} }))).action).toBe('success');
      expect({ asked, userinfo: 'userinfo' in (seen[0] ?? {}) }).toEqual({ asked, userinfo: asked === true });
      if (asked) expect(seen[0]?.userinfo).toMatchObject({ sub: seen[0]?.claims.sub });
    }
  });

  test.each(['userinfo', 'split'] as const)(
    'a service that delivers the claims asked for from userinfo (signInClaimsAt=%s, in an acme object): by default the verify function gets them in claims; userinfo: false leaves out what the ID token lacks',
    async (at) => {
      const keys = ['acmeidentity.name', 'sanctionscheck.is_pep'] as const;
      const jane = { 'acmeidentity.name': { first_name: 'Jane', last_name: 'Citizen' }, 'sanctionscheck.is_pep': false };
      for (const asked of [undefined, false] as const) {
        const seen: FinishedSignIn[] = [];
        const { strategy, signIn } = await stage(
          { signIn: { claims: { acme: [...keys] } }, ...(asked === undefined ? {} : { userinfo: asked }) },
          (result) => {
            seen.push(result);
            return { id: result.claims.sub };
          },
          { readings: { signInClaimsAt: at, signInClaims: 'acme' } },
        );
        expect((await run(strategy, await signIn({ session: {} }))).action).toBe('success');
        const read = readClaims(seen[0]!.claims, [...keys]);
        // Split, the ID token holds the first half of them: the name.
        const inIdToken = at === 'split' ? { 'acmeidentity.name': jane['acmeidentity.name'] } : {};
        expect({ asked, read }).toEqual({ asked, read: asked === false ? inIdToken : jane });
      }
    },
  );
});
