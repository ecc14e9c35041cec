/* The evidence tables (migration 0012): the chain's start, the signed checkpoints and the signing keys. */

/**
 * One row (id 1): where the chain starts. GENESIS and 0 at first; retention moves it past the entries it
 * removes (their last id and hash, and how many went), so the entries left still verify from it.
 */
export interface AuditChainTable {
  id: number;
  base_id: number;
  base_hash: string;
  base_count: number;
}

/** A signed statement of the chain at a moment: its length, its head (evidence/checkpoints.ts). */
export interface AuditCheckpointsTable {
  id: string;
  /** `hour:<hours since 1970>` for the hourly one (one per hour across replicas), `now:…` on demand. */
  slot: string;
  at: number;
  /** Entries chained from the genesis up to and with the head (those retention removed included). */
  entries: number;
  head_id: number;
  head_hash: string;
  key_id: string;
  /** Ed25519 over the checkpoint's canonical JSON (checkpointPayload), base64url. */
  signature: string;
}

/** A public key checkpoints and evidence are signed with: current (valid_to null) or retired. */
export interface EvidenceKeysTable {
  /** The JWK thumbprint (RFC 7638). */
  key_id: string;
  /** The public JWK (JSON). */
  public_jwk: string;
  valid_from: number;
  valid_to: number | null;
}
