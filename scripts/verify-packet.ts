import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { JSONWebKeySet } from 'jose';
import { signOffLine, verifyPacket } from '../src/evidence-verify/packet.ts';

/**
 * `npm run verify -- <packet.zip> --keys <JWKS URL or file>`: checks an evidence packet against the JWKS given
 * (a key inside the packet would prove nothing). Exits 0 with a short summary, 1 naming what does not match, 2
 * when it cannot check (no such file, no JWKS).
 */
export async function verifyCommand(
  args: readonly string[],
  print: { out: (line: string) => void; err: (line: string) => void },
): Promise<number> {
  const at = args.indexOf('--keys');
  const keys = at >= 0 ? args[at + 1] : undefined;
  const packet = args.find((a, i) => !a.startsWith('--') && i !== at + 1);
  if (!packet || !keys) {
    print.err('usage: npm run verify -- <packet.zip> --keys <JWKS URL or file>');
    return 2;
  }
  const jwks = await readKeys(keys);
  const verdict = await verifyPacket(new Uint8Array(await readFile(packet)), jwks);
  const m = verdict.manifest;
  if (m && verdict.ok) {
    print.out(verdict.summary);
    print.out(
      `Review: ${m.review.name} (${m.review.id}), ${m.review.rows} rows, account ${m.review.account.name}`,
    );
    print.out(`Runs: ${m.runs.length}, the last finished ${m.runs.at(-1)?.finishedAt ?? 'not yet'}`);
    print.out(signOffLine(m.signOff));
    for (const f of m.files) print.out(`  ${f.name}  ${f.bytes} bytes  sha256 ${f.sha256}`);
    print.out(
      `Audit checkpoint: ${m.audit.checkpoint.entries} entries, head ${m.audit.checkpoint.headHash} (key ${m.audit.checkpoint.keyId})`,
    );
    return 0;
  }
  print.err(verdict.summary);
  return 1;
}

/** The JWKS from a URL (http or https) or a file; refused unless it has keys. */
async function readKeys(where: string): Promise<JSONWebKeySet> {
  const text = /^https?:\/\//i.test(where)
    ? await fetch(where, { signal: AbortSignal.timeout(10_000) }).then((res) => {
        if (!res.ok) throw new Error(`the JWKS at ${where} answered ${res.status}`);
        return res.text();
      })
    : await readFile(where, 'utf8');
  const jwks = JSON.parse(text) as JSONWebKeySet;
  if (!Array.isArray(jwks?.keys)) throw new Error(`${where} is not a JWKS (no "keys")`);
  return jwks;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  verifyCommand(process.argv.slice(2), { out: console.log, err: console.error }).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`verify: ${err.message}`);
      process.exit(2);
    },
  );
}
