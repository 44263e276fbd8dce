// Prints vitest's totals as one plain line ("tests: N passed, N failed") for CI logs.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(new URL('../.tmp/vitest.json', import.meta.url), 'utf8'));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
if (report.numFailedTests > 0 || report.numPassedTests === 0) process.exit(1);
