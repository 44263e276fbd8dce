/**
 * The status endpoint's rules on a controlled clock, over a scripted inbox: when the service is
 * asked about a late webhook and how often, the Server-Sent Events stream event by event and to its
 * last millisecond, what is refused and how, and a Node response that closes. The scripted inbox
 * is the `IdentityInbox` surface the page uses; test/inbox/return-page.test.ts runs the same page
 * on a real inbox against a sandbox.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { ConfigurationError } from '../../src/errors/index.js';
import {
  createReturnPage,
  type IdentityInbox,
  type NodeRequestLike,
  type NodeResponseLike,
  RETURN_PARAMETER,
  type RequestOutcome,
  type ReturnPageOptions,
  type ServiceView,
  type WaitOptions,
} from '../../src/inbox/index.js';

const T0 = 1_800_000_000_000;

beforeEach(() => {
  vi.useFakeTimers({ now: T0, toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * An inbox whose every reference `ref-<code>` opens to request `<code>`, each request `awaiting`
 * until `states` says otherwise; `waitFor` takes its whole timeout on the clock (nothing changes
 * meanwhile, unless `next` is given), and every call is recorded.
 */
function scriptedInbox() {
  const states = new Map<string, RequestOutcome>();
  const views = new Map<string, ServiceView>();
  const asked: string[] = [];
  const waits: { code: string; options: WaitOptions }[] = [];
  let next: (() => RequestOutcome | undefined) | undefined;
  const stateOf = (code: string): RequestOutcome => states.get(code) ?? { state: 'awaiting', at: T0, final: false };
  const inbox = {
    async openReference(sealed: string) {
      return sealed.startsWith('ref-') ? { accessRequestCode: sealed.slice(4), offRamp: sealed.endsWith('-off') } : undefined;
    },
    async outcome(code: string) {
      return stateOf(code);
    },
    async waitFor(code: string, options: WaitOptions = {}) {
      waits.push({ code, options });
      vi.setSystemTime(Date.now() + (options.timeoutMs ?? 25_000));
      const changed = next?.();
      if (changed) states.set(code, changed);
      return stateOf(code);
    },
    async askService(code: string) {
      asked.push(code);
      return views.get(code) ?? 'not-started';
    },
  } as Partial<IdentityInbox> as IdentityInbox;
  return {
    inbox,
    states,
    views,
    asked,
    waits,
    setNext(f: () => RequestOutcome | undefined) {
      next = f;
    },
  };
}

function pageOn(options: Partial<ReturnPageOptions> = {}) {
  const script = scriptedInbox();
  const page = createReturnPage({ inbox: script.inbox, ...options });
  const get = async (code: string, query = '', init: RequestInit = {}) => {
    const answer = await page.fetch(new Request(`https://rp.example/status?${RETURN_PARAMETER}=ref-${code}${query}`, init));
    return { status: answer.status, headers: answer.headers, body: await answer.text() };
  };
  const json = async (code: string, query = '') => JSON.parse((await get(code, query)).body) as Record<string, unknown>;
  return { ...script, page, get, json };
}

describe('what createReturnPage refuses', () => {
  test('no options, or an inbox without openReference() or waitFor(): a ConfigurationError naming the inbox', () => {
    for (const options of [undefined, {}, { inbox: {} }, { inbox: { openReference() {} } }, { inbox: { waitFor() {} } }]) {
      expect(() => createReturnPage(options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({ name: 'ConfigurationError', option: 'inbox' }),
      );
    }
    expect(() => createReturnPage({ inbox: scriptedInbox().inbox, lateAfterSeconds: 0 })).toThrow(ConfigurationError);
  });
});

describe('answers', () => {
  test('a method other than GET or HEAD: 405 with the methods allowed; HEAD is answered as GET', async () => {
    const { get } = pageOn();
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const refused = await get('arc_1', '', { method });
      expect([refused.status, refused.headers.get('allow'), refused.headers.get('cache-control'), JSON.parse(refused.body)]).toEqual([
        405,
        'GET, HEAD',
        'no-store',
        { error: 'method_not_allowed' },
      ]);
    }
    const head = await get('arc_1', '', { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type')]).toEqual([200, 'application/json']);
  });

  test('a query naming two references is answered for the first, as the page reads its own', async () => {
    const { get } = pageOn();
    expect((await get('arc_1', `&${RETURN_PARAMETER}=forged`)).status).toBe(200);
  });

  test('a reference that does not open: 404 saying only that there is no request for it', async () => {
    const { page } = pageOn();
    const answer = await page.fetch(new Request(`https://rp.example/status?${RETURN_PARAMETER}=forged`));
    expect([answer.status, answer.headers.get('cache-control'), await answer.json()]).toEqual([
      404,
      'no-store',
      { error: 'not_found', message: 'no request for this reference' },
    ]);
  });

  test('wait is a long poll of at most 30 s, since the state given; no wait (or nonsense) answers at once', async () => {
    const { json, waits } = pageOn();
    for (const [query, timeoutMs] of [
      ['', 0],
      ['&wait=abc', 0],
      ['&wait=-5', 0],
      ['&wait=12.5', 12_500],
      ['&wait=31', 30_000],
      ['&wait=Infinity', 0],
    ] as const) {
      waits.length = 0;
      await json('arc_1', `${query}&since=awaiting`);
      expect(
        waits.map((w) => [w.options.timeoutMs, w.options.since]),
        query,
      ).toEqual([[timeoutMs, 'awaiting']]);
    }
  });
});

describe("the service's view of a late webhook", () => {
  test('asked once the page has waited lateAfterSeconds (10 s by default), to the millisecond, and only while awaiting', async () => {
    const { json, asked, states } = pageOn();
    expect(await json('arc_1', '&waited=9.999')).not.toHaveProperty('service');
    expect(asked).toEqual([]);
    expect(await json('arc_1', '&waited=10')).toMatchObject({ state: 'awaiting', service: 'not-started' });
    expect(asked).toEqual(['arc_1']);
    states.set('arc_2', { state: 'processing', at: T0, final: false });
    expect(await json('arc_2', '&waited=3600')).not.toHaveProperty('service');
    expect(asked).toEqual(['arc_1']);
  });

  test('a long poll counts its own wait: 5 s waited before and 5 s polling is late at 10', async () => {
    const { json, asked } = pageOn();
    expect(await json('arc_1', '&waited=5&wait=4.999&since=awaiting')).not.toHaveProperty('service');
    expect(await json('arc_1', '&waited=5&wait=5&since=awaiting')).toMatchObject({ service: 'not-started' });
    expect(asked).toEqual(['arc_1']);
  });

  test('lateAfterSeconds is in seconds: with 1, half a second is not late', async () => {
    const { json, asked } = pageOn({ lateAfterSeconds: 1 });
    expect(await json('arc_1', '&waited=0.5')).not.toHaveProperty('service');
    expect(await json('arc_1', '&waited=1')).toMatchObject({ service: 'not-started' });
    expect(asked).toEqual(['arc_1']);
  });

  test('asked at most once per lateAfterSeconds per request: the view of the last read until then, a new read at its end', async () => {
    const { json, asked, views } = pageOn({ lateAfterSeconds: 10 });
    expect(await json('arc_1', '&waited=10')).toMatchObject({ service: 'not-started' });
    views.set('arc_1', 'in-progress');
    vi.setSystemTime(T0 + 9_999);
    expect(await json('arc_1', '&waited=20')).toMatchObject({ service: 'not-started' });
    expect(await json('arc_2', '&waited=20')).toMatchObject({ service: 'not-started' });
    expect(asked).toEqual(['arc_1', 'arc_2']);
    vi.setSystemTime(T0 + 10_000);
    expect(await json('arc_1', '&waited=20')).toMatchObject({ service: 'in-progress' });
    expect(asked).toEqual(['arc_1', 'arc_2', 'arc_1']);
  });

  test('the page remembers the last 10,000 requests it asked about: the oldest is asked again after the 10,001st', async () => {
    const { json, asked } = pageOn();
    for (let i = 0; i < 10_000; i++) await json(`arc_${i}`, '&waited=10');
    expect(asked).toHaveLength(10_000);
    await json('arc_0', '&waited=10');
    await json('arc_1', '&waited=10');
    expect(asked).toHaveLength(10_000);
    await json('arc_10000', '&waited=10');
    await json('arc_1', '&waited=10');
    expect(asked).toHaveLength(10_001);
    await json('arc_0', '&waited=10');
    expect(asked.slice(10_000)).toEqual(['arc_10000', 'arc_0']);
  });
});

/** The stream's text, its blocks each as `event <json>` or `comment <text>`. */
function blocksOf(text: string): string[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => (block.startsWith(': ') ? `comment ${block.slice(2)}` : `event ${block.replace(/^event: state\ndata: /, '')}`));
}

describe('Server-Sent Events, on a controlled clock', () => {
  test('each change an event, nothing new a comment, the service view once late, each wait at most 15 s and cut to the stream left, closed at streamSeconds to the millisecond', async () => {
    const { get, waits } = pageOn({ lateAfterSeconds: 20, streamSeconds: 40 });
    const answer = await get('arc_1', '', { headers: { accept: 'text/event-stream' } });
    expect([answer.status, answer.headers.get('content-type'), answer.headers.get('cache-control')]).toEqual([
      200,
      'text/event-stream',
      'no-store',
    ]);
    const awaiting = '{"state":"awaiting","at":1800000000000,"final":false,"offRamp":false';
    expect(blocksOf(answer.body)).toEqual([
      `event ${awaiting}}`,
      'comment still waiting',
      `event ${awaiting},"service":"not-started"}`,
      'comment still waiting',
    ]);
    expect(waits.map((w) => [w.options.timeoutMs, w.options.since, w.options.signal instanceof AbortSignal])).toEqual([
      [15_000, 'awaiting', true],
      [15_000, 'awaiting', true],
      [10_000, 'awaiting', true],
    ]);
  });

  test('streamSeconds is a minute by default: four waits of 15 s, then closed', async () => {
    const { get, waits } = pageOn();
    await get('arc_1', '', { headers: { accept: 'text/event-stream' } });
    expect(waits.map((w) => w.options.timeoutMs)).toEqual([15_000, 15_000, 15_000, 15_000]);
  });

  test('the state now, then each change, each wait since the state last sent; closed at a final state', async () => {
    const { get, setNext, waits } = pageOn();
    const coming: RequestOutcome[] = [
      { state: 'processing', at: T0 + 1, final: false },
      { state: 'verified', at: T0 + 2, final: true },
    ];
    setNext(() => coming.shift());
    const answer = await get('arc_1-off', '', { headers: { accept: 'text/event-stream' } });
    expect(blocksOf(answer.body)).toEqual([
      'event {"state":"awaiting","at":1800000000000,"final":false,"offRamp":true}',
      'event {"state":"processing","at":1800000000001,"final":false,"offRamp":true}',
      'event {"state":"verified","at":1800000000002,"final":true,"offRamp":true}',
    ]);
    expect(waits.map((w) => w.options.since)).toEqual(['awaiting', 'processing']);
  });

  test('waited counts the time the page waited before the stream opened', async () => {
    const { get } = pageOn({ lateAfterSeconds: 20, streamSeconds: 20 });
    const answer = await get('arc_1', '&waited=6', { headers: { accept: 'text/event-stream' } });
    expect(blocksOf(answer.body).map((b) => b.includes('"service"'))).toEqual([false, true, false]);
    // A time waited below 0 (a page's clock, or a forged query) counts as 0, never against the time the stream waits.
    const negative = await get('arc_1', '&waited=-50', { headers: { accept: 'text/event-stream' } });
    expect(blocksOf(negative.body).map((b) => b.includes('"service"'))).toEqual([false, false, true]);
  });
});

describe('node(), for Node http handlers', () => {
  /** A Node response that records what is written, and can be closed as a browser leaving does. */
  function nodeResponse() {
    const written: string[] = [];
    let close: (() => void) | undefined;
    const head: { status?: number; headers?: Record<string, string> } = {};
    const response: NodeResponseLike = {
      writeHead(status, headers) {
        Object.assign(head, { status, headers });
      },
      write(chunk) {
        written.push(new TextDecoder().decode(chunk));
      },
      end() {
        written.push('<end>');
      },
      once(_event, listener) {
        close = listener;
      },
    };
    return { response, written, head, close: () => close?.() };
  }

  test('the page going away (the response closes) stops the stream: the wait under way is aborted, the response ended', async () => {
    const script = scriptedInbox();
    let waiting: () => void = () => undefined;
    const waited = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    let aborted = false;
    // A wait that ends only when its signal aborts.
    script.inbox.waitFor = (_code, options = {}) => {
      waiting();
      return new Promise((resolve) =>
        options.signal?.addEventListener('abort', () => {
          aborted = true;
          resolve({ state: 'awaiting', at: T0, final: false });
        }),
      );
    };
    const page = createReturnPage({ inbox: script.inbox });
    const { response, written, head, close } = nodeResponse();
    const request: NodeRequestLike = {
      method: 'GET',
      url: '/mounted-away',
      originalUrl: `/status?${RETURN_PARAMETER}=ref-arc_1`,
      headers: { accept: ['text/event-stream'], 'x-empty': undefined },
    };
    const serving = page.node(request, response);
    await waited;
    expect([written.length, aborted]).toEqual([1, false]);
    close();
    await serving;
    expect(aborted).toBe(true);
    expect(head).toMatchObject({ status: 200, headers: { 'content-type': 'text/event-stream' } });
    expect(written.at(-1)).toBe('<end>');
  });

  test("the Node request's method is the one answered: a POST is 405 with the methods allowed, a request without one is a GET", async () => {
    const page = createReturnPage({ inbox: scriptedInbox().inbox });
    const url = `/status?${RETURN_PARAMETER}=ref-arc_1`;
    const posted = nodeResponse();
    await page.node({ method: 'POST', url, headers: {} }, posted.response);
    expect(posted.head).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
    const unnamed = nodeResponse();
    await page.node({ url, headers: {} }, unnamed.response);
    expect(unnamed.head).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' } });
  });
});
