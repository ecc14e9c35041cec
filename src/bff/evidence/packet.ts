import { createHash } from 'node:crypto';
import { Zip, ZipDeflate } from 'fflate';
import { CompactSign } from 'jose';
import { type Kysely, sql } from 'kysely';
import packageJson from '../../../package.json' with { type: 'json' };
import type { ReviewSummary } from '../../contract/index.ts';
import {
  MANIFEST,
  MANIFEST_JWS,
  type PacketFile,
  type PacketManifest,
  type PacketSignOff,
} from '../../evidence-verify/packet.ts';
import type { Database } from '../db/database.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import type { Checkpoints } from './checkpoints.ts';
import type { Evidence } from './evidence.ts';
import type { SigningKey } from './signing-key.ts';

/*
 * The evidence packet (docs/decisions/014-evidence-formats.md): the review's files, a manifest stating what they
 * are (their SHA-256, the review, its runs, the audit checkpoint taken now and the entries behind the rows) and
 * the manifest signed as a compact JWS (EdDSA) with the evidence key, in one ZIP. Anyone checks it against the
 * JWKS at /.well-known/proplens-evidence-keys.json (src/evidence-verify/packet.ts).
 */

/** What the route gives about the review besides its files. */
export interface PacketReview {
  review: ReviewSummary;
  account: { id: string; name: string };
  startedByName: string | null;
  /** Sign-off and approval as the JSON export states them (names beside keys); null when not signed off. */
  signOff: PacketSignOff | null;
  /**
   * The host the packet says it was exported at ("signed by PropLens at <host>"): a name the operator configured,
   * never the client's Host alone (routes/review-evidence.ts packetHost).
   */
  host: string;
  /** The file the review came from, when it has one: its name and when it was received (epoch ms). */
  source?: { name: string; receivedAt: number } | null;
}

/** The manifest as built (the verifier's type carries `source` and the sign-off's shape). */
export type BuiltManifest = PacketManifest;

export interface EvidencePacket {
  zip: Uint8Array;
  manifest: BuiltManifest;
}

type Db = Kysely<DatabaseSchema>;

/** Builds evidence packets on the BFF's database. */
export class EvidencePackets {
  readonly #serviceUrl: string;

  constructor(
    private readonly options: {
      db: Db;
      key: SigningKey;
      checkpoints: Checkpoints;
      /** The property service's base URL; only its origin and path go in the manifest. */
      serviceUrl: string;
      now?: () => number;
    },
  ) {
    const url = new URL(options.serviceUrl);
    this.#serviceUrl = `${url.origin}${url.pathname}`;
  }

  /** The audit entries behind the review's rows (lookups, fixes, decisions), in chain order. */
  async entries(accountId: string, reviewId: string): Promise<PacketManifest['audit']['entries']> {
    const rows = await this.options.db
      .selectFrom('audit_entries')
      .select(['id', 'row_index', 'kind', 'hash'])
      .where('account_id', '=', accountId)
      .where('review_id', '=', reviewId)
      // The chain's entries only: a row at or before its start is not in it (audit:verify names such a row).
      .where(sql<boolean>`id > (select base_id from audit_chain where id = 1)`)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      row: r.row_index === null ? null : Number(r.row_index),
      kind: r.kind,
      hash: r.hash,
    }));
  }

  /** Signs a checkpoint now, states the files and signs the manifest; the files in the order given. */
  async build(
    about: PacketReview,
    files: readonly { name: string; bytes: Uint8Array }[],
  ): Promise<EvidencePacket> {
    const entries = await this.entries(about.account.id, about.review.id);
    const checkpoint = await this.options.checkpoints.checkpointNow();
    const exportedAt = (this.options.now ?? Date.now)();
    const { review } = about;
    const manifest: BuiltManifest = {
      type: 'proplens-evidence-packet',
      v: 1,
      exportedAt: new Date(exportedAt).toISOString(),
      proplens: { version: packageJson.version, host: about.host },
      service: { baseUrl: this.#serviceUrl },
      review: {
        id: review.id,
        name: review.name,
        account: about.account,
        startedBy: { fingerprint: review.createdBy, name: about.startedByName },
        startedAt: review.createdAt,
        rows: review.receivedRows,
      },
      runs: review.runs.map((r) => ({ number: r.number, startedAt: r.startedAt, finishedAt: r.finishedAt })),
      ...(about.source
        ? { source: { name: about.source.name, receivedAt: new Date(about.source.receivedAt).toISOString() } }
        : {}),
      signOff: about.signOff,
      files: files.map(
        ({ name, bytes }): PacketFile => ({ name, bytes: bytes.length, sha256: sha256(bytes) }),
      ),
      audit: {
        checkpoint: {
          entries: Number(checkpoint.entries),
          headId: Number(checkpoint.head_id),
          headHash: checkpoint.head_hash,
          at: new Date(Number(checkpoint.at)).toISOString(),
          keyId: checkpoint.key_id,
          signature: checkpoint.signature,
        },
        entries,
      },
    };
    return { zip: await this.#zip(manifest, files, exportedAt), manifest };
  }

  async #zip(manifest: PacketManifest, files: readonly { name: string; bytes: Uint8Array }[], at: number) {
    const manifestBytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
    const { key } = this.options;
    const jws = await new CompactSign(manifestBytes)
      .setProtectedHeader({ alg: 'EdDSA', kid: key.keyId, typ: 'proplens-evidence+jws' })
      .sign(key.privateKey);
    return zipYielding(
      [
        ...files,
        { name: MANIFEST, bytes: manifestBytes },
        { name: MANIFEST_JWS, bytes: new TextEncoder().encode(jws) },
      ],
      new Date(at),
    );
  }
}

/** Deflated this much at a time, then the event loop's turn. */
const ZIP_SLICE = 1 << 20;

/**
 * The ZIP (fflate's streaming Zip), deflated a megabyte at a time with the event loop served between: zipSync
 * held the BFF for 1.3 s over a 100,000-row review's 51 MB of exports. The entries are dated `mtime` (the
 * export), not the moment zipped.
 */
async function zipYielding(
  files: readonly { name: string; bytes: Uint8Array }[],
  mtime: Date,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let failed: Error | null = null;
  let ended = false;
  const zip = new Zip((err, chunk, final) => {
    if (err) failed = err;
    else parts.push(chunk);
    if (final) ended = true;
  });
  for (const { name, bytes } of files) {
    const entry = new ZipDeflate(name, { level: 6 });
    entry.mtime = mtime;
    zip.add(entry);
    for (let at = 0; ; at += ZIP_SLICE) {
      const last = at + ZIP_SLICE >= bytes.length;
      entry.push(bytes.subarray(at, at + ZIP_SLICE), last);
      if (last) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (failed) throw failed;
  }
  zip.end();
  if (failed) throw failed;
  if (!ended) throw new Error('the evidence ZIP did not end');
  const zipped = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    zipped.set(p, offset);
    offset += p.length;
  }
  return zipped;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The BFF's packets (graph.ts): none where nothing can sign (replicas sharing PostgreSQL without a key). */
export function evidencePacketsOn(
  database: Database,
  evidence: Pick<Evidence, 'checkpoints' | 'signingKey'>,
  options: { serviceUrl: string; now?: () => number },
): EvidencePackets | undefined {
  // The checkpoints' own key: none where nothing signs (a shared database without EVIDENCE_SIGNING_KEY).
  const key = evidence.signingKey;
  if (!key) return undefined;
  return new EvidencePackets({
    db: database.db,
    key,
    checkpoints: evidence.checkpoints,
    serviceUrl: options.serviceUrl,
    ...(options.now ? { now: options.now } : {}),
  });
}
