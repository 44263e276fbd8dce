/**
 * The browser page: a "Sign in" button that sends the person to the service, and the callback
 * that finishes the sign-in. Bundled for the browser by `server.ts`; its configuration comes from
 * the page (a `<script type="application/json" id="config">`), as a real app would inject it.
 */
import { createBrowserSignIn, OidcError, readClaim } from '@acme/identity/oidc/browser';

/** The page's element with this id: the server writes each one, so a missing one is a mistake in the page. */
function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found;
}

const config = JSON.parse(element('config').textContent ?? '') as { authUrl: string; clientId: string; redirectUri: string };
const signIn = createBrowserSignIn(config);
const out = element('out');

function show(state: 'signed-in' | 'error', text: string) {
  out.dataset['state'] = state;
  out.textContent = text;
}

const failed = (error: unknown) => show('error', error instanceof OidcError ? `${error.code}: ${error.message}` : String(error));

if (location.pathname === '/callback') {
  try {
    const { claims, data } = await signIn.handleCallback();
    // The code and state leave the address bar (and the history) once used.
    history.replaceState(null, '', (data as { returnTo?: string } | undefined)?.returnTo ?? '/');
    show('signed-in', JSON.stringify({ sub: claims.sub, name: readClaim(claims, 'acmeidentity.name'), given_name: claims['given_name'] }));
  } catch (error) {
    failed(error);
  }
} else {
  element('sign-in').addEventListener('click', () => {
    signIn
      .redirect({
        scope: ['openid', 'profile'],
        claims: { profile: ['given_name'], acme: ['acmeidentity.name'] },
        data: { returnTo: '/account' },
      })
      .catch(failed);
  });
}
