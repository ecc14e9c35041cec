import * as z from 'zod/mini';

/*
 * "Work while I'm signed out" (key custody, docs/decisions/013-key-custody.md): GET /api/custody says whether the
 * account keeps a key encrypted on the server for its reviews to go on with nobody signed in; PUT turns it on
 * with this session's key (the browser never sends or sees a key), DELETE turns it off. Never the key itself.
 */

export const CustodyState = z.object({
  /** The server can keep a key: false when KEY_ENCRYPTION_SECRET is missing where replicas share the database. */
  available: z.boolean(),
  /** A key is kept and this server can read it: reviews go on with nobody signed in. */
  on: z.boolean(),
  /** Who turned it on: the fingerprint of the key kept, and the name its holder gave it. */
  keyFingerprint: z.nullable(z.string()),
  keyName: z.nullable(z.string()),
  /** When it was turned on (ISO). */
  since: z.nullable(z.string()),
  /**
   * Why no key is in use although custody was turned on: `refused` (the service refused the kept key on
   * `problemAt`, and it was deleted), `unreadable` (it was sealed under another KEY_ENCRYPTION_SECRET, or
   * altered: turn it on again).
   */
  problem: z.nullable(z.enum(['refused', 'unreadable'])),
  problemAt: z.nullable(z.string()),
  /** Said by the server: why it cannot be turned on here (a demo key, no secret), or null. */
  unavailableReason: z.nullable(z.string()),
});
export type CustodyState = z.infer<typeof CustodyState>;
