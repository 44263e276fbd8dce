/**
 * What a check says (✓, ✗, ! or -, a line, and advice) and how a list of checks reads: the report
 * `--json` prints, its outcome, and the checklist as text. Shared by doctor and the receiver check.
 */
import { AcmeIdentityError } from '../index.js';
import { printable } from '../internal/text.js';

export type CheckStatus = 'ok' | 'fail' | 'warn' | 'skip';

export interface Check {
  readonly name: string;
  readonly status: CheckStatus;
  /** What was found, in one line. */
  readonly detail: string;
  /** What to do, for a failure or a warning. */
  readonly advice?: string;
  /** For the open choices: the option to set, when one applies. */
  readonly option?: string;
}

/**
 * What the whole run says: `ok` (every check passed), `warnings` (none failed, some warned),
 * `incomplete` (none failed, but settings were missing and checks were skipped: nothing was proven
 * about them), `failed`. The CLI exits 0, 0 (1 with `--strict`), 3 and 1.
 */
export type DoctorOutcome = 'ok' | 'warnings' | 'incomplete' | 'failed';

/** The report, as `--json` prints it. Its `schemaVersion` changes when a field changes meaning. */
export interface DoctorReport {
  readonly schemaVersion: 1;
  readonly outcome: DoctorOutcome;
  /** True when no check failed and none was skipped. */
  readonly ok: boolean;
  readonly checks: readonly Check[];
}

/** The outcome of a list of checks. */
function outcomeOf(checks: readonly Check[]): DoctorOutcome {
  if (checks.some((check) => check.status === 'fail')) return 'failed';
  if (checks.some((check) => check.status === 'skip')) return 'incomplete';
  return checks.some((check) => check.status === 'warn') ? 'warnings' : 'ok';
}

/** The report of a list of checks, its outcome stated. */
export function reportOf(checks: readonly Check[]): DoctorReport {
  const outcome = outcomeOf(checks);
  return { schemaVersion: 1, outcome, ok: outcome === 'ok' || outcome === 'warnings', checks };
}

/** Why the SDK refused an answer, in one line. */
export function refusal(error: unknown): string {
  if (error instanceof AcmeIdentityError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

const MARK: Record<CheckStatus, string> = { ok: '✓', fail: '✗', warn: '!', skip: '-' };

/** The terminal color of each status: green, red, yellow, and grey for a skipped check. */
const COLORS: Record<CheckStatus, number> = { ok: 32, fail: 31, warn: 33, skip: 90 };

/**
 * A check's text on one line of the terminal: what a deployment answered (an API version, an
 * error's message) is printed in it, and a control character there (a line break, an escape
 * sequence that moves the cursor or recolours) could write a ✓ over a ✗. Each becomes a space.
 */
export const oneLine = (text: string): string => printable(text, Number.POSITIVE_INFINITY) ?? '';

/** The checklist as text: one line per check, its advice below a failure or a warning. */
export function formatReport(report: DoctorReport, color: boolean): string {
  const paint = (status: CheckStatus, text: string) => {
    if (!color) return text;
    return `\x1b[${COLORS[status]}m${text}\x1b[0m`;
  };
  const lines = report.checks.map((check) => {
    const head = `${paint(check.status, MARK[check.status])} ${check.name.padEnd(17)} ${oneLine(check.detail)}`;
    const advice =
      check.advice && check.status !== 'ok'
        ? `\n  ${' '.repeat(18)}→ ${oneLine(check.advice)}${check.option ? ` (option: ${check.option})` : ''}`
        : '';
    return head + advice;
  });
  const count = (status: CheckStatus) => report.checks.filter((c) => c.status === status).length;
  const summary: Record<DoctorOutcome, string> = {
    ok: 'every check passed',
    warnings: `${count('warn')} warnings, no failures`,
    incomplete: `incomplete: ${count('skip')} checks skipped (settings missing)${count('warn') ? `, ${count('warn')} warnings` : ''}, no failures`,
    failed: `${count('fail')} failed${count('warn') ? `, ${count('warn')} warnings` : ''}`,
  };
  lines.push('', summary[report.outcome]);
  return lines.join('\n');
}
