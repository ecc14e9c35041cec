import { pathToFileURL } from 'node:url';
import { openDatabase } from '../src/bff/db/database.ts';
import { readBffConfig } from '../src/bff/env.ts';
import { verdictLine, verifyTrail } from '../src/bff/evidence/verify-trail.ts';
import { loadEnvFile } from './load-env.js';

/**
 * `npm run audit:verify`: walks the whole audit trail of the BFF's database (DATABASE_URL, or the embedded one in
 * DATABASE_DIR, as the BFF reads them) and every signed checkpoint. Exits 0 with the count, or 1 naming the first
 * entry that does not match: its id, its time, and whether it was changed, removed or inserted.
 */
export async function auditVerify(
  env: Record<string, string | undefined>,
  print: { out: (line: string) => void; err: (line: string) => void },
): Promise<number> {
  const config = readBffConfig(env);
  const database = await openDatabase({ url: config.databaseUrl, dir: config.databaseDir });
  try {
    const result = await verifyTrail(database.db, { sqlite: database.sqlite });
    (result.ok ? print.out : print.err)(verdictLine(result));
    return result.ok ? 0 : 1;
  } finally {
    await database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  loadEnvFile();
  auditVerify(process.env, { out: console.log, err: console.error }).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`audit:verify: ${err.message}`);
      process.exit(2);
    },
  );
}
