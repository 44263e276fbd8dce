/**
 * The query parameter of `return_url` and `off_ramp_url` that carries a request's sealed reference:
 * written by the inbox (`returnUrls`), read by the status endpoint and by the page's script. Its
 * own module, so that the browser entry takes the name without the inbox.
 */
export const RETURN_PARAMETER = 'acme_ref';
