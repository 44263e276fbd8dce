/**
 * The verifiers' logging: the same `logger`, `logLevel` and `ACME_IDENTITY_LOG` as the clients'
 * (`internal/observe.ts`, which builds on this file), without hooks, in a few bytes for the
 * browser and edge bundles. The levels and the logger's type live here, the floor of both.
 */

/** How much is logged. Each level includes the ones before it. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/**
 * Where logs go: `console`, or any object with these four methods (winston's loggers fit as they
 * are; for pino, whose methods take the fields first, see the README).
 */
export interface Logger {
  debug(message: string, fields: object): void;
  info(message: string, fields: object): void;
  warn(message: string, fields: object): void;
  error(message: string, fields: object): void;
}

export interface LiteLogOptions {
  /** Where logs go. @default console */
  logger?: Pick<Logger, 'info' | 'warn'>;
  /** @default 'warn', or `ACME_IDENTITY_LOG` where `process.env` exists */
  logLevel?: LogLevel;
}

/** Each level's rank: a line is written when the configured rank is at least its level's. Shared with `observe.ts`. */
export const RANK: Readonly<Record<string, number>> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** A `log(level, message, fields)` that writes what the level allows, and never throws. */
export function liteLog(options: LiteLogOptions = {}): (level: 'info' | 'warn', message: string, fields: object) => void {
  const level =
    options.logLevel ?? (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['ACME_IDENTITY_LOG'];
  const rank = RANK[level ?? 'warn'] ?? 2;
  const logger = options.logger ?? console;
  return (at, message, fields) => {
    if (rank < RANK[at]!) return;
    try {
      logger[at](`[acme-identity] ${message}`, fields);
    } catch {
      // A logger that throws never breaks a verification.
    }
  };
}
