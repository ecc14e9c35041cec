import { deleteReview, listReviews } from '../api/server-reviews.ts';

/** The account's reviews as sign-out must mention them: how many still run, how many there are. */
export async function reviewsAtSignOut(): Promise<{ running: number; total: number }> {
  const reviews = await listReviews();
  return { running: reviews.filter((r) => r.status !== 'done').length, total: reviews.length };
}

/** A demo key's reviews are removed when it signs out: demo data, not evidence anyone keeps. */
export async function deleteDemoReviews(): Promise<void> {
  for (const review of await listReviews()) await deleteReview(review.id);
}
