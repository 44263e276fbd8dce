/**
 * Tests read no setting from the machine they run on (#45): every `ACME_*` variable (the
 * `ACME_IDENTITY_LOG` level, a base URL, a secret) is removed before a test file runs, for it and
 * for the child processes it starts. A test of a variable's effect sets it itself.
 */
for (const name of Object.keys(process.env)) if (name.startsWith('ACME_')) delete process.env[name];
