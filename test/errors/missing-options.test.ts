/**
 * #31: every function and class of every public entry, called with nothing or with an empty
 * object, either works or throws (or rejects with) one of the SDK's typed errors: never a raw
 * `TypeError` ("Cannot read properties of undefined") that names no option.
 */
import { describe, expect, test } from 'vitest';
import * as authjs from '../../src/authjs/index.js';
import * as betterAuth from '../../src/better-auth/index.js';
import { AcmeIdentityError } from '../../src/errors/index.js';
import * as main from '../../src/index.js';
import * as inbox from '../../src/inbox/index.js';
import * as browser from '../../src/oidc/browser.js';
import * as oidc from '../../src/oidc/index.js';
import * as passport from '../../src/passport/index.js';
import * as redis from '../../src/redis/index.js';
import * as sdJwt from '../../src/sd-jwt/index.js';
import * as express from '../../src/webhooks/frameworks/express.js';
import * as fastify from '../../src/webhooks/frameworks/fastify.js';
import * as hono from '../../src/webhooks/frameworks/hono.js';
import * as next from '../../src/webhooks/frameworks/next.js';
import * as webhooks from '../../src/webhooks/index.js';

const ENTRIES = { main, oidc, browser, sdJwt, webhooks, express, fastify, next, hono, inbox, redis, passport, authjs, betterAuth };

type Callable = ((...args: unknown[]) => unknown) & (new (...args: unknown[]) => unknown);

/** Each callable export but the error classes themselves. */
const callables = Object.entries(ENTRIES).flatMap(([entry, exports]) =>
  Object.entries(exports as Record<string, unknown>)
    .filter(([name, value]) => typeof value === 'function' && !/Error$/.test(name))
    .map(([name, value]) => [`${entry}.${name}`, value as Callable] as const),
);

/** What a call with `argument` does: works, or fails with the error it threw or rejected with. */
async function outcome(fn: Callable, argument: unknown): Promise<unknown> {
  const isClass = /^class\b/.test(Function.prototype.toString.call(fn));
  try {
    const result = isClass ? new fn(argument) : fn(argument);
    if (result instanceof Promise) await result;
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('missing options', () => {
  test('the entries export callables to check', () => {
    expect(callables.length).toBeGreaterThan(40);
  });

  test.each(callables)('%s, called with nothing or with {}, fails (if at all) with a typed error', async (_name, fn) => {
    for (const argument of [undefined, {}]) {
      const error = await outcome(fn, argument);
      if (error !== undefined) expect(error, String(error)).toBeInstanceOf(AcmeIdentityError);
    }
  });
});
