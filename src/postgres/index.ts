/**
 * `@acme/identity/postgres`: the identity inbox's store in PostgreSQL, on node-postgres (`pg`, an
 * optional peer this entry never imports: pass your `pg.Pool`).
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { PostgresInboxStore } from '@acme/identity/postgres';
 *
 * const store = new PostgresInboxStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * await store.migrate();
 * ```
 * @packageDocumentation
 */
export { PostgresInboxStore, postgresInboxMigration } from './inbox.js';
export type { PgPoolClientLike, PgPoolLike, PostgresInboxStoreOptions } from './inbox.js';
