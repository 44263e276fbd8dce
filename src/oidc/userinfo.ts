/** The userinfo call, kept apart so a browser page that does not use it does not ship it. */
import { allowInsecureRequests, customFetch, processUserInfoResponse, userInfoRequest, type UserInfoResponse } from 'oauth4webapi';
import type { OidcCore, SignInResult } from './flow.js';
import { mapChallenge } from './challenge.js';

/** The userinfo endpoint's claims: `sub`, plus the requested claims. */
export type UserInfo = UserInfoResponse & Readonly<Record<string, unknown>>;

/**
 * oauth4webapi's request options for `core`: its `fetch` and its `http:` rule. Here, not in the
 * core, so the browser sign-in page that never calls a request function does not ship it.
 */
export const http = (core: OidcCore) => ({
  [customFetch]: core.get as (url: string, init: object) => Promise<Response>,
  [allowInsecureRequests]: core.insecure,
});

/**
 * Calls the userinfo endpoint with the sign-in's access token and checks that it answers for the
 * ID token's subject.
 * @throws {OidcError} `ERR_OIDC_USERINFO` when the token is refused or the subject differs.
 */
export async function userinfo(core: OidcCore, result: Pick<SignInResult, 'claims' | 'tokens'>): Promise<UserInfo> {
  try {
    const as = await core.metadata();
    const client = core.client();
    const response = await userInfoRequest(as, client, result.tokens.access_token, http(core));
    return (await processUserInfoResponse(as, client, result.claims.sub as string, response)) as UserInfo;
  } catch (e) {
    throw mapChallenge(e, 'ERR_OIDC_USERINFO');
  }
}
