/** The service's error table (spec, "Errors"): each code with its type and HTTP status. */

export const ERROR_TABLE = {
  E1001: { type: 'VALIDATION_ERROR', status: 400 },
  E1002: { type: 'INVALID_REQUEST', status: 400 },
  E1003: { type: 'AUTHENTICATION_FAILED', status: 401 },
  E1004: { type: 'UNAUTHORIZED', status: 403 },
  E1005: { type: 'NOT_FOUND', status: 404 },
  E1006: { type: 'CONFLICT', status: 409 },
  E1007: { type: 'RATE_LIMIT_EXCEEDED', status: 429 },
  E1008: { type: 'PRECONDITION_FAILED', status: 412 },
  E1009: { type: 'CREDENTIAL_EXPIRED', status: 412 },
  E1010: { type: 'CREDENTIAL_REVOKED', status: 412 },
  E1011: { type: 'CREDENTIAL_PENDING_ACCEPTANCE', status: 412 },
  E1012: { type: 'CREDENTIAL_VERIFICATION_FAILED', status: 412 },
  E2001: { type: 'INTERNAL_ERROR', status: 500 },
  E2002: { type: 'INTERNAL_ERROR_EMAIL', status: 500 },
  E2003: { type: 'DATABASE_ERROR', status: 500 },
  E2004: { type: 'EXTERNAL_SERVICE_ERROR', status: 502 },
  E2005: { type: 'SERVICE_UNAVAILABLE', status: 503 },
} as const;

/** A code of the service's error table. */
export type ServiceErrorCode = keyof typeof ERROR_TABLE;

/**
 * The code of the table an error names: its code, in any case (`e1003`); else the code its type is
 * paired with, in any case (`authentication_failed` as E1003); `undefined` when it names neither.
 */
export function namedCode(code: string | undefined, type: string | undefined): ServiceErrorCode | undefined {
  const upper = code?.toUpperCase();
  if (upper !== undefined && Object.hasOwn(ERROR_TABLE, upper)) return upper as ServiceErrorCode;
  const typed = type?.toUpperCase();
  return typed === undefined ? undefined : (Object.keys(ERROR_TABLE) as ServiceErrorCode[]).find((c) => ERROR_TABLE[c].type === typed);
}
