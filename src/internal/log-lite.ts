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

/** The levels in order: a line is written when the configured level is its own or comes after it. Shared with `observe.ts`. */
export const LOG_LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug'];

/** A level's rank (its place in {@link LOG_LEVELS}), or -1 for a text that names no level. */
export function rankOf(level: string): number {
  return (LOG_LEVELS as readonly string[]).indexOf(level);
}

/** A `log(level, message, fields)` that writes what the level allows, and never throws. */
export function liteLog(options: LiteLogOptions = {}): (level: 'info' | 'warn', message: string, fields: object) => void {
  const level =
    options.logLevel ?? (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['ACME_IDENTITY_LOG'];
  const given = rankOf(level ?? 'warn');
  const rank = given < 0 ? rankOf('warn') : given;
  const logger = options.logger ?? console;
  return (at, message, fields) => {
    if (rank < rankOf(at)) return;
    try {
      logger[at](`[acme-identity] ${message}`, fields);
    } catch {
      // A logger that throws never breaks a verification.
    }
  };
}
