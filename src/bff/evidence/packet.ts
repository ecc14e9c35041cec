import { createHash, type Hash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
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
import type { Checkpoints, SignedCheckpoint } from './checkpoints.ts';
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

/** What the packet is of, known before its files are read. */
export type PacketAbout = Omit<PacketReview, 'startedByName' | 'signOff'>;
/** What the manifest shares with the JSON export, known once that export has passed. */
export type PacketFacts = Pick<PacketReview, 'startedByName' | 'signOff'>;

/** The review changed while its packet was read: the packet is cut rather than signed over files of two moments. */
export class PacketTorn extends Error {
  constructor() {
    super('the review changed while its evidence packet was read');
  }
}

/** The manifest as built (the verifier's type carries `source` and the sign-off's shape). */
export type BuiltManifest = PacketManifest;

export interface EvidencePacket {
  zip: Uint8Array;
  manifest: BuiltManifest;
}

/**
 * A file of the packet: its bytes, or its chunks as they come (an export, read at the pace the packet is read).
 * A chunk is taken as given and kept no longer than it takes to deflate and hash it.
 */
export interface PacketInput {
  name: string;
  bytes: Uint8Array | AsyncIterable<Uint8Array>;
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

  /** The whole packet in memory: `stream`'s bytes, and its manifest (tests, and what reads it whole). */
  async build(about: PacketReview, files: readonly PacketInput[]): Promise<EvidencePacket> {
    const chunks = this.stream(about, files, { facts: () => about });
    const parts: Uint8Array[] = [];
    for (let next = await chunks.next(); ; next = await chunks.next()) {
      if (next.done) return { zip: Buffer.concat(parts), manifest: next.value };
      parts.push(next.value);
    }
  }

  /**
   * The packet's ZIP as it is made, a chunk at a time, the files in the order given: each deflated and hashed as
   * its chunks come, so what is held at once is a chunk and the deflater's window, whatever the review's size (a
   * 100,000-row review's exports are 51 MB). First, as a packet built whole did: the audit entries behind the
   * rows are read and a checkpoint signed (which registers the key: the packet is dated after it). Once every
   * file has passed, `unchanged` is asked whether the review is as it was when its exports were asked
   * (PacketTorn otherwise), `facts` asked (the JSON export states who started the review and
   * its sign-off, and the manifest says the same), and the manifest stating the files' SHA-256 and its JWS
   * close the ZIP; the generator's value is the manifest. A file that fails ends the generator with its error,
   * before the manifest: a ZIP cut short, never one that looks whole.
   */
  async *stream(
    about: PacketAbout,
    files: readonly PacketInput[],
    options: { facts: () => PacketFacts; unchanged?: () => Promise<boolean> },
  ): AsyncGenerator<Uint8Array, BuiltManifest, undefined> {
    const accountId = about.account.id;
    const reviewId = about.review.id;
    const entries = await this.entries(accountId, reviewId);
    const checkpoint = await this.options.checkpoints.checkpointNow();
    const exportedAt = (this.options.now ?? Date.now)();
    const zip = new ZipWriter(new Date(exportedAt));
    const stated: PacketFile[] = [];
    for (const { name, bytes: content } of files) {
      const hash = createHash('sha256');
      const bytes = yield* deflated(zip, name, content, hash);
      stated.push({ name, bytes, sha256: hash.digest('hex') });
    }
    if (options.unchanged && !(await options.unchanged())) throw new PacketTorn();
    const manifest = this.#manifest({ ...about, ...options.facts() }, stated, exportedAt, {
      entries,
      checkpoint,
    });
    const manifestBytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
    const { key } = this.options;
    const jws = await new CompactSign(manifestBytes)
      .setProtectedHeader({ alg: 'EdDSA', kid: key.keyId, typ: 'proplens-evidence+jws' })
      .sign(key.privateKey);
    // A slice at a time too: a 100,000-row review's manifest is 17 MB and its JWS 23 MB.
    yield* deflated(zip, MANIFEST, manifestBytes);
    yield* deflated(zip, MANIFEST_JWS, new TextEncoder().encode(jws));
    const out = zip.end();
    if (out) yield out;
    return manifest;
  }

  /** The trail's last entry now: what is committed later has a higher id (the chain's order is the ids'). */
  async head(): Promise<number> {
    const row = await this.options.db
      .selectFrom('audit_entries')
      .select((eb) => eb.fn.max('id').as('last'))
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }

  /**
   * Has the review an audit entry after `since` (a `head()`)? Every change of what its exports say adds one, in
   * the change's own transaction (a row fix's is its lookup's, held for it: reviews/fix-row.ts). Read by the
   * account's entries after `since` only (its index: account, id).
   */
  async changedSince(accountId: string, reviewId: string, since: number): Promise<boolean> {
    const row = await this.options.db
      .selectFrom('audit_entries')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '>', since)
      .where('review_id', '=', reviewId)
      // A monitor started or stopped changes nothing the exports say.
      .where('kind', 'not in', ['monitor_started', 'monitor_stopped'])
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The manifest of the files stated, with the entries and the checkpoint read when the packet began. */
  #manifest(
    about: PacketReview,
    files: PacketFile[],
    exportedAt: number,
    audit: { entries: PacketManifest['audit']['entries']; checkpoint: SignedCheckpoint },
  ): BuiltManifest {
    const { review } = about;
    const { entries, checkpoint } = audit;
    return {
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
      files,
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
  }
}

/** Deflated this much at a time at the most: a file given whole passes in slices, each its own turn. */
const ZIP_SLICE = 1 << 20;

/**
 * A file's content a slice at a time: bytes given whole cut to ZIP_SLICE, an export's chunks likewise; the event
 * loop served before each next slice (a chunk read from SQLite, or bytes in memory, would otherwise come back in
 * the same turn, and the whole file be deflated in it). From node:timers/promises, which tests' fake timers leave.
 */
async function* slices(content: Uint8Array | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const whole = content instanceof Uint8Array ? [content] : content;
  for await (const chunk of whole)
    for (let at = 0; at < chunk.length; at += ZIP_SLICE) {
      yield chunk.subarray(at, at + ZIP_SLICE);
      await setImmediate();
    }
}

/** One entry of the ZIP, deflated a slice at a time (each hashed into `hash`), its output as it comes; its size. */
async function* deflated(
  zip: ZipWriter,
  name: string,
  content: Uint8Array | AsyncIterable<Uint8Array>,
  hash?: Hash,
): AsyncGenerator<Uint8Array, number, undefined> {
  const entry = zip.entry(name);
  let bytes = 0;
  for await (const slice of slices(content)) {
    hash?.update(slice);
    bytes += slice.length;
    entry.push(slice, false);
    const out = zip.take();
    if (out) yield out;
  }
  entry.push(new Uint8Array(0), true);
  return bytes;
}

/**
 * fflate's streaming Zip, its output taken as it comes. Entries are dated `mtime` (the export), not the moment
 * zipped. Deflating is synchronous: the caller's awaits between chunks serve the event loop (zipSync held the
 * BFF for 1.3 s over a 100,000-row review's exports).
 */
class ZipWriter {
  readonly #zip: Zip;
  #out: Uint8Array[] = [];
  #failed: Error | null = null;
  #ended = false;

  constructor(private readonly mtime: Date) {
    this.#zip = new Zip((err, chunk, final) => {
      if (err) this.#failed = err;
      else this.#out.push(chunk);
      if (final) this.#ended = true;
    });
  }

  entry(name: string): { push(bytes: Uint8Array, last: boolean): void } {
    const entry = new ZipDeflate(name, { level: 6 });
    entry.mtime = this.mtime;
    this.#zip.add(entry);
    return {
      push: (bytes, last) => {
        entry.push(bytes, last);
        if (this.#failed) throw this.#failed;
      },
    };
  }

  /** What the ZIP has written since it was last asked, as one chunk (null when nothing). */
  take(): Uint8Array | null {
    if (this.#out.length === 0) return null;
    const taken = this.#out.length === 1 ? (this.#out[0] as Uint8Array) : Buffer.concat(this.#out);
    this.#out = [];
    return taken;
  }

  end(): Uint8Array | null {
    this.#zip.end();
    if (this.#failed) throw this.#failed;
    if (!this.#ended) throw new Error('the evidence ZIP did not end');
    return this.take();
  }
}

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
