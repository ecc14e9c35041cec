import type { Property, ReviewKind } from '../../../../contract/index.ts';
import { formatCount } from '../../../lib/format.ts';
import type { PreparedRows } from './rows.ts';

/**
 * What an input panel (paste, file, area) or the sample offers to start a review with, as the review's kind
 * and origin (the file's name, the area searched) will say it: its rows, or an area's records.
 */
export type Draft =
  | {
      kind: Exclude<ReviewKind, 'area'>;
      origin?: string;
      prepared: PreparedRows;
      defaultName: string;
      /** The file chosen, as it is: kept with the review for its evidence packet. */
      file?: File;
    }
  | { kind: 'area'; origin: string; records: Property[]; defaultName: string };

const n = formatCount;
const plural = (count: number, one: string, many: string) => `${n(count)} ${count === 1 ? one : many}`;

/**
 * "12 addresses · 2 blank lines skipped · 1 repeated (looked up once) · 1 too long (marked failed)"; "12 rows ·
 * 2 by parcel number · 1 without an address …" when some rows have no address.
 */
export function describePrepared(p: PreparedRows): string {
  const withoutAddress = p.byParcel + p.noAddress;
  const parts = [
    withoutAddress > 0 ? plural(p.rows.length, 'row', 'rows') : plural(p.rows.length, 'address', 'addresses'),
  ];
  if (p.byParcel > 0) parts.push(`${n(p.byParcel)} looked up by parcel number`);
  if (p.noAddress > 0)
    parts.push(`${plural(p.noAddress, 'row', 'rows')} without an address (kept, answered “no address”)`);
  if (p.skippedBlank > 0) parts.push(`${plural(p.skippedBlank, 'blank line', 'blank lines')} skipped`);
  if (p.duplicates > 0) parts.push(`${plural(p.duplicates, 'repeat', 'repeats')} (looked up once)`);
  if (p.refused > 0)
    parts.push(
      `${plural(p.refused, 'row', 'rows')} refused (not an address, or over 512 characters): never sent`,
    );
  return parts.join(' · ');
}
