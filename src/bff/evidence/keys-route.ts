import { Hono } from 'hono';
import type { Checkpoints } from './checkpoints.ts';

/** Where anyone (no sign-in) reads the public keys evidence is signed with. */
export const EVIDENCE_KEYS_PATH = '/.well-known/proplens-evidence-keys.json';

/**
 * The evidence keys as a JWKS (RFC 7517): the current key and the retired ones configuration holds, each with when
 * it signed (`valid_from`, `valid_to`); never a key only the database has (Checkpoints.keys). Cached for five
 * minutes: a new key is seen within that.
 */
export function evidenceKeyRoutes(checkpoints: Checkpoints) {
  const app = new Hono();
  app.get(EVIDENCE_KEYS_PATH, async (c) => {
    const keys = await checkpoints.keys();
    c.header('Cache-Control', 'public, max-age=300');
    c.header('Access-Control-Allow-Origin', '*');
    return c.json({ keys });
  });
  return app;
}
