/** Child processes in tests: what one printed, once it ended. */
import type { ChildProcess } from 'node:child_process';

export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Everything it wrote to stdout (when stdout is a pipe). */
  stdout: string;
}

/**
 * Resolves once `child` has ended *and* its stdout is read to the end: on `close`, not `exit`.
 * `exit` can come before the last chunk of a pipe is read, most often on a loaded machine, and a
 * test that parses the output then reads it empty.
 */
export function ended(child: ChildProcess): Promise<Ended> {
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout }));
  });
}

/** The last line a child printed, as JSON; an error naming what it printed when that is not JSON. */
export function lastJsonLine<T>(stdout: string): T {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new Error(`the child's last line is not JSON: ${JSON.stringify(stdout.slice(-500))}`);
  }
}
