import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { Review, ReviewRow } from '../model.ts';

/**
 * Reviews and their rows as this browser keeps them (IndexedDB), so a reload, a closed tab or an ended
 * session loses nothing. Every read is scoped to an account: another account on the same browser never
 * sees a review, even by its id.
 */
export interface ReviewStore {
  listReviews(accountId: string): Promise<Review[]>;
  getReview(accountId: string, id: string): Promise<Review | undefined>;
  getRows(reviewId: string): Promise<ReviewRow[]>;
  /** A new review with all its rows, in one transaction: never half saved. */
  createReview(review: Review, rows: readonly ReviewRow[]): Promise<void>;
  putReview(review: Review): Promise<void>;
  /** Rows as they change; one transaction for the lot. */
  putRows(rows: readonly ReviewRow[]): Promise<void>;
  /** The review and its rows (only if it is the account's). */
  deleteReview(accountId: string, id: string): Promise<void>;
  /** Everything the account keeps here (signing out of a demo key). */
  deleteAccount(accountId: string): Promise<void>;
}

interface ReviewDb extends DBSchema {
  reviews: { key: string; value: Review; indexes: { 'by-account': string } };
  rows: { key: [string, number]; value: ReviewRow };
}

export const REVIEW_DB_NAME = 'proplens-reviews';

const rowsOf = (reviewId: string) => IDBKeyRange.bound([reviewId, 0], [reviewId, Number.MAX_SAFE_INTEGER]);

export function openReviewStore(name = REVIEW_DB_NAME): ReviewStore {
  let db: Promise<IDBPDatabase<ReviewDb>> | null = null;
  const open = () => {
    db ??= openDB<ReviewDb>(name, 1, {
      upgrade(database) {
        const reviews = database.createObjectStore('reviews', { keyPath: 'id' });
        reviews.createIndex('by-account', 'accountId');
        database.createObjectStore('rows', { keyPath: ['reviewId', 'index'] });
      },
      // Another tab upgrading the schema: let it, and reopen on next use.
      blocking() {
        void db?.then((d) => d.close());
        db = null;
      },
    });
    return db;
  };

  const removeReview = async (id: string) => {
    const tx = (await open()).transaction(['reviews', 'rows'], 'readwrite');
    await Promise.all([
      tx.objectStore('reviews').delete(id),
      tx.objectStore('rows').delete(rowsOf(id)),
      tx.done,
    ]);
  };

  return {
    async listReviews(accountId) {
      const all = await (await open()).getAllFromIndex('reviews', 'by-account', accountId);
      return all.sort((a, b) => b.createdAt - a.createdAt);
    },
    async getReview(accountId, id) {
      const review = await (await open()).get('reviews', id);
      return review?.accountId === accountId ? review : undefined;
    },
    async getRows(reviewId) {
      return (await open()).getAll('rows', rowsOf(reviewId));
    },
    async createReview(review, rows) {
      const tx = (await open()).transaction(['reviews', 'rows'], 'readwrite');
      const rowStore = tx.objectStore('rows');
      await Promise.all([
        tx.objectStore('reviews').put(review),
        ...rows.map((r) => rowStore.put(r)),
        tx.done,
      ]);
    },
    async putReview(review) {
      await (await open()).put('reviews', review);
    },
    async putRows(rows) {
      if (rows.length === 0) return;
      const tx = (await open()).transaction('rows', 'readwrite');
      await Promise.all([...rows.map((r) => tx.store.put(r)), tx.done]);
    },
    async deleteReview(accountId, id) {
      const review = await (await open()).get('reviews', id);
      if (review?.accountId === accountId) await removeReview(id);
    },
    async deleteAccount(accountId) {
      const ids = await (await open()).getAllKeysFromIndex('reviews', 'by-account', accountId);
      for (const id of ids) await removeReview(id);
    },
  };
}
