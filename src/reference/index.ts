import { serve } from '@hono/node-server';
import { AccountDirectory } from './accounts.ts';
import { createReferenceApp } from './app.ts';
import { type Clock, ControllableClock, SYSTEM_CLOCK } from './clock.ts';
import type { ReferenceConfig } from './config.ts';
import { openDatabase } from './dataset/database.ts';
import { authSettingFor } from './dialect.ts';
import { createProgress } from './progress.ts';
import { SqlitePropertyStore } from './resolver/sqlite-store.ts';

export { DEMO_KEYS, SALES_CONTACT } from './accounts.ts';
export { createReferenceApp } from './app.ts';
export { type Clock, ControllableClock } from './clock.ts';
export { type ReferenceConfig, readReferenceConfig } from './config.ts';
export {
  authSettingFor,
  DEFAULT_DIALECT,
  type Dialect,
  describeDialect,
  representativeDialects,
} from './dialect.ts';

export interface RunningReference {
  url: string;
  /** Where its clients put the key, as a PROPERTY_API_AUTH setting (its dialect's). */
  auth: ReturnType<typeof authSettingFor>;
  records: number;
  /** Its time: the system's, or one tests move forward (REFERENCE_CLOCK=controllable). */
  clock: Clock;
  close(): Promise<void>;
}

/** Opens (building if needed) the dataset and serves the reference service on a loopback port. */
export async function startReference(config: ReferenceConfig): Promise<RunningReference> {
  const { db } = await openDatabase({
    records: config.records,
    seed: config.seed,
    dir: config.dataDir,
    onProgress: createProgress(
      `Building reference data (${config.records.toLocaleString('en-US')} properties)`,
    ),
    onIndexing: () => console.error('Indexing addresses for search and typo correction...'),
  });
  const store = new SqlitePropertyStore(db);
  const clock = config.clock === 'controllable' ? new ControllableClock() : undefined;
  const app = createReferenceApp({
    store,
    ...(clock ? { clock } : {}),
    dialect: config.dialect,
    rateLimit: config.rateLimit,
    faults: config.faults,
    accounts: new AccountDirectory(),
    drift: { percent: config.driftPercent, seed: config.seed },
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    url: `http://${config.host}:${port}`,
    auth: authSettingFor(config.dialect),
    records: store.count(),
    clock: clock ?? SYSTEM_CLOCK,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          db.close();
          resolve();
        });
      }),
  };
}
