import { listReviews, STILL_RUNNING } from '../api/server-reviews.ts';

/**
 * The account's reviews as sign-out must mention them: how many still run (the account's: they pause), and how
 * many this key started (`keyFingerprint`: a demo visitor's, which the BFF removes at a demo sign-out; other
 * visitors of the same demo account keep theirs).
 */
export async function reviewsAtSignOut(keyFingerprint?: string): Promise<{ running: number; mine: number }> {
  const reviews = await listReviews();
  return {
    running: reviews.filter((r) => STILL_RUNNING.has(r.status)).length,
    mine: keyFingerprint ? reviews.filter((r) => r.createdBy === keyFingerprint).length : 0,
  };
}
