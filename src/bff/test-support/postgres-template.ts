import { makePostgresTemplate } from './postgres-process.ts';

/**
 * Vitest's global setup for the server tests: one template cluster for the run, which every PostgresServer.start
 * copies instead of running initdb again (postgres-process.ts, PG_TEMPLATE_ENV). Runs before the workers start,
 * so they inherit the variable naming it; the teardown removes it.
 */
export default function setup() {
  return makePostgresTemplate();
}
