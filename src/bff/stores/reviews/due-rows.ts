import { RowFix } from '../../../contract/index.ts';
import type { LeasedRow } from '../../reviews/leased-row.ts';
import type { OpenRun } from './lease-order.ts';

/** Expired leases taken back per lease call (more wait for the next). */
export const RECLAIM_BATCH = 256;

/** A due row as the lease reads it (review_results joined with review_rows), in either store's query. */
export interface DueRow {
  row_index: number;
  attempts: number;
  address: string;
  fix: string | null;
  parcel: string | null;
  address_key: string | null;
}

/** The row of `run` to lease, from what the lease read of it. */
export function dueRow(run: OpenRun, d: DueRow): Omit<LeasedRow, 'fresh'> {
  return {
    reviewId: run.reviewId,
    accountId: run.accountId,
    ...(run.createdBy ? { owner: run.createdBy } : {}),
    run: run.run,
    index: d.row_index,
    address: lookupAddress(d.address, d.fix, d.parcel),
    key: d.address_key,
    attempts: d.attempts,
  };
}

/**
 * What a row asks: the address a reviewer fixed it to, else the input, else (a row of a file with no address)
 * its parcel number; blank when it has none of them (the row is answered no_address, never sent).
 */
function lookupAddress(input: string, fix: string | null, parcel: string | null): string {
  if (fix) {
    const parsed = RowFix.safeParse(JSON.parse(fix));
    if (parsed.success) return parsed.data.address;
  }
  return input.trim() === '' && parcel ? parcel : input;
}
