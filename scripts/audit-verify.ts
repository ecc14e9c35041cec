import { openDatabase } from '../src/bff/db/database.ts';
import { readBffConfig } from '../src/bff/env.ts';
import { verdictLine, verifyTrail } from '../src/bff/evidence/verify-trail.ts';
import { loadEnvFile } from './load-env.js';

/**
 * `npm run audit:verify`: walks the whole audit trail of the BFF's database (DATABASE_URL, or the embedded one in
 * DATABASE_DIR, as the BFF reads them) and every signed checkpoint. Exits 0 with the count, or 1 naming the first
 * entry that does not match: its id, its time, and whether it was changed, removed or inserted.
 */
async function main(): Promise<number> {
  loadEnvFile();
  const config = readBffConfig(process.env);
  const database = await openDatabase({ url: config.databaseUrl, dir: config.databaseDir });
  try {
    const result = await verifyTrail(database.db);
    (result.ok ? console.log : console.error)(verdictLine(result));
    return result.ok ? 0 : 1;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`audit:verify: ${err.message}`);
    process.exit(2);
  },
);
