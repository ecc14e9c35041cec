import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/schema.ts';
import { keyFingerprint, type Session } from '../stores/sessions/types.ts';
import type { LeasedRow } from './leased-row.ts';

/**
 * Whose key a review's rows go on. The owner's own when it is signed in (the worker asks for it first); when a
 * colleague's carries them, the review says so ("running on the key of …", reviews.carried_by, migration 0010),
 * and says so no more once the owner's key is back. Written when it changes, not per row: this replica remembers
 * what it last wrote of each review (another replica's write shows at its next change).
 */
export class ReviewCarriers {
  readonly #written = new Map<string, string | null>();

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly changed: (reviewId: string) => void,
  ) {}

  async note(row: Pick<LeasedRow, 'reviewId' | 'owner'>, session: Session): Promise<void> {
    if (!row.owner) return;
    const key = keyFingerprint(session.keyHash);
    const carrier = key === row.owner ? null : key;
    if (this.#written.get(row.reviewId) === carrier) return;
    this.#written.set(row.reviewId, carrier);
    if (this.#written.size > 10_000) this.#written.clear();
    await this.db
      .updateTable('reviews')
      .set({ carried_by: carrier })
      .where('id', '=', row.reviewId)
      .execute();
    this.changed(row.reviewId);
  }
}
