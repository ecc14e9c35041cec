import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../src/bff/db/database.ts';
import { readBffConfig } from '../src/bff/env.ts';
import { loadRetiredKeys, readSigningKey } from '../src/bff/evidence/signing-key.ts';
import { type TrustedKey, verdictLine, verifyTrail } from '../src/bff/evidence/verify-trail.ts';
import { loadEnvFile } from './load-env.js';

/**
 * `npm run audit:verify [-- --keys <JWKS URL or file>]`: walks the whole audit trail of the BFF's database
 * (DATABASE_URL, or the embedded one in DATABASE_DIR, as the BFF reads them) and every signed checkpoint. Exits 0
 * with the count, or 1 naming the first entry that does not match: its id, its time, and whether it was changed,
 * removed or inserted. Checkpoints are checked against the JWKS given, or else the configured keys (the signing
 * key and EVIDENCE_RETIRED_KEYS), never the database's evidence_keys table: whoever can write the database could
 * put a key there (ADR 014, "What a database writer can and cannot do").
 */
export async function auditVerify(
  env: Record<string, string | undefined>,
  print: { out: (line: string) => void; err: (line: string) => void },
  args: readonly string[] = [],
): Promise<number> {
  const at = args.indexOf('--keys');
  const given = at >= 0 ? args[at + 1] : undefined;
  if (at >= 0 && !given) {
    print.err('usage: npm run audit:verify [-- --keys <JWKS URL or file>]');
    return 2;
  }
  const config = readBffConfig(env);
  const database = await openDatabase({ url: config.databaseUrl, dir: config.databaseDir });
  try {
    const keys = given
      ? await readJwks(given)
      : configuredKeys(config, database.sqlite ? dirname(database.sqlite.name) : undefined);
    const result = await verifyTrail(database.db, { sqlite: database.sqlite, keys });
    (result.ok ? print.out : print.err)(verdictLine(result));
    return result.ok ? 0 : 1;
  } finally {
    await database.close();
  }
}

/** The keys the BFF would serve: its signing key (never generated here) and the retired keys configured. */
function configuredKeys(
  config: { evidenceSigningKey: string | undefined; evidenceRetiredKeys: string | undefined },
  dir: string | undefined,
): TrustedKey[] {
  const key = readSigningKey(config.evidenceSigningKey, dir);
  const current: TrustedKey[] = key ? [{ ...key.publicKey.export({ format: 'jwk' }), kid: key.keyId }] : [];
  return [...current, ...loadRetiredKeys(config.evidenceRetiredKeys, dir)];
}

/** The JWKS from a URL (http or https) or a file, as `npm run verify` reads it; refused unless it has keys. */
async function readJwks(where: string): Promise<TrustedKey[]> {
  const text = /^https?:\/\//i.test(where)
    ? await fetch(where, { signal: AbortSignal.timeout(10_000) }).then((res) => {
        if (!res.ok) throw new Error(`the JWKS at ${where} answered ${res.status}`);
        return res.text();
      })
    : await readFile(where, 'utf8');
  const keys = (JSON.parse(text) as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new Error(`${where} is not a JWKS (no "keys")`);
  return keys as TrustedKey[];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  loadEnvFile();
  auditVerify(process.env, { out: console.log, err: console.error }, process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`audit:verify: ${err.message}`);
      process.exit(2);
    },
  );
}
