/**
 * The person's "browser" of the sign-in examples: follows redirects, keeps the relying party's
 * cookies, and approves on the service's consent page, as a person clicking through would.
 */

/** A browser for the relying party at `origin`: `browse(url)` follows every redirect. */
export function personBrowser(origin: string): (href: string, init?: RequestInit) => Promise<Response> {
  const jar = new Map<string, string>();
  const browse = async (href: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(href);
    const cookie = url.origin === origin ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : '';
    const headers = new Headers(init.headers);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(url, { ...init, redirect: 'manual', headers });
    if (url.origin === origin) {
      for (const set of response.headers.getSetCookie()) {
        const [pair = ''] = set.split(';');
        jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
    }
    const location = response.headers.get('location');
    return location ? browse(new URL(location, url).href) : response;
  };
  return browse;
}

/** Signs in from `${origin}/login`, approving on the service's page; resolves the page the person lands on. */
export async function signInAsPerson(origin: string): Promise<Response> {
  const browse = personBrowser(origin);
  const consent = await browse(`${origin}/login`);
  const approve = /action="([^"]+\/approve)"/.exec(await consent.text())?.[1];
  if (!approve) throw new Error('no approve button on the service page');
  console.log('the person approves on the service page');
  return browse(approve, { method: 'POST' });
}
