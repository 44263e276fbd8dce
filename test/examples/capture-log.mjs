// Preloaded (node --import) into the demo and every example by debug-log.test.ts: keeps each line
// the SDK logs through `console` (they start with "[acme-identity]"), with its fields, in a file.
import { appendFileSync } from 'node:fs';

const file = process.env.ACME_LOG_CAPTURE;
if (file) {
  for (const level of ['debug', 'info', 'warn', 'error']) {
    const original = console[level].bind(console);
    console[level] = (message, ...rest) => {
      if (typeof message === 'string' && message.startsWith('[acme-identity]')) {
        appendFileSync(file, `${JSON.stringify({ level, message, fields: rest[0] ?? null })}\n`);
        return;
      }
      original(message, ...rest);
    };
  }
}
