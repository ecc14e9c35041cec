import {
  AddressInput,
  addressProblem,
  askedKey,
  MAX_ADDRESS_LENGTH,
  MAX_REVIEW_BYTES,
  MAX_REVIEW_ROWS,
  type ReviewRowResult,
} from '../../../../contract/index.ts';
import { formatCount } from '../../../lib/format.ts';

/** Most rows in one review, and the largest input (pasted text or file) we read: the server's limits. */
export { MAX_REVIEW_ROWS };
export const MAX_INPUT_BYTES = MAX_REVIEW_BYTES;

export { MAX_ADDRESS_LENGTH };

/**
 * A row before it is sent: pending, or failed with why when refused here (it is sent all the same, and the BFF
 * refuses it the same way, without a lookup).
 */
export type DraftRow = Pick<
  ReviewRowResult,
  'index' | 'input' | 'cells' | 'error' | 'sourceRow' | 'parcel'
> & {
  outcome: 'pending' | 'failed';
};

/** The rows of a review before it is saved: input order, blanks already dropped. */
export interface PreparedRows {
  rows: DraftRow[];
  /** Blank inputs skipped (not rows). */
  skippedBlank: number;
  /** Rows refused before any lookup (too long, control characters, a web link, no letter or digit). */
  refused: number;
  /** Rows whose address repeats an earlier row: looked up once, kept in place. */
  duplicates: number;
  /** Rows with no address but a parcel number: looked up by it. */
  byParcel: number;
  /** Rows with neither an address nor a parcel number: kept in place, answered "no address", never looked up. */
  noAddress: number;
  /** An uploaded file's header, in order (each row's cells follow it); absent for pasted text. */
  columns?: string[];
}

/** One input row: its address (maybe empty), and for a table its cells, row number and parcel number. */
export interface RowInput {
  address: string;
  cells?: readonly string[];
  sourceRow?: number;
  parcel?: string;
}

export class InputError extends Error {}

export const NO_ADDRESS_MESSAGE = 'No address in this row (and no parcel number): nothing to look up.';

/**
 * Turns inputs into review rows, one for each that is not blank. A row with no address stays a row (looked up
 * by its parcel number, or answered "no address"), so the export joins back 1:1; an input the contract
 * refuses (over 512 characters, control characters), a web link or a line without a letter or digit becomes a
 * failed row that is never sent, so every other row still goes ahead; a repeat of an earlier address stays in
 * place (the runner looks it up once).
 */
export function prepareRows(inputs: Iterable<string | RowInput>): PreparedRows {
  const rows: PreparedRows['rows'] = [];
  const seen = new Set<string>();
  let skippedBlank = 0;
  let refused = 0;
  let duplicates = 0;
  let byParcel = 0;
  let noAddress = 0;
  for (const item of inputs) {
    const given = typeof item === 'string' ? { address: item } : item;
    const input = given.address.trim();
    const own = {
      ...(given.cells ? { cells: [...given.cells] } : {}),
      ...(given.sourceRow !== undefined ? { sourceRow: given.sourceRow } : {}),
      ...(given.parcel ? { parcel: given.parcel } : {}),
    };
    if (input === '' && !given.parcel && !given.cells?.some((c) => c.trim() !== '')) {
      skippedBlank++;
      continue;
    }
    if (rows.length >= MAX_REVIEW_ROWS) {
      throw new InputError(
        `That is more than ${formatCount(MAX_REVIEW_ROWS)} addresses. Split the list and start one review for each part.`,
      );
    }
    const index = rows.length;
    if (input === '') {
      if (given.parcel) {
        byParcel++;
        const key = askedKey('', given.parcel) as string;
        if (seen.has(key)) duplicates++;
        else seen.add(key);
        rows.push({ index, input, ...own, outcome: 'pending' });
      } else {
        noAddress++;
        rows.push({
          index,
          input,
          ...own,
          outcome: 'failed',
          error: { code: 'no_address', message: NO_ADDRESS_MESSAGE },
        });
      }
      continue;
    }
    const checked = AddressInput.safeParse(input);
    const notAddress = checked.success ? addressProblem(input) : null;
    if (!checked.success || notAddress) {
      refused++;
      rows.push({
        index,
        // Kept whole in the row so the export shows what was refused; it is never sent.
        input,
        ...own,
        outcome: 'failed',
        error: {
          code: 'bad_request',
          message: notAddress ?? refusal(input, checked.error?.issues[0]?.message),
        },
      });
      continue;
    }
    const key = askedKey(input, undefined) as string;
    if (seen.has(key)) duplicates++;
    else seen.add(key);
    rows.push({ index, input, ...own, outcome: 'pending' });
  }
  return { rows, skippedBlank, refused, duplicates, byParcel, noAddress };
}

/** Why the contract refuses an input, in words that name the cause (a tab is a pasted spreadsheet's columns). */
function refusal(input: string, message: string | undefined): string {
  if (input.length > MAX_ADDRESS_LENGTH)
    return `Longer than ${MAX_ADDRESS_LENGTH} characters: shorten it to the street address.`;
  if (input.includes('\t'))
    return 'Holds tab characters (cells copied from a spreadsheet): paste the rows as a table, or one address per line.';
  return message ?? 'That is not an address.';
}

/** Pasted text: one address per line, any line ending. */
export function pastedLines(text: string): string[] {
  if (new TextEncoder().encode(text).length > MAX_INPUT_BYTES) {
    throw new InputError(
      'That is more than 20 MB of text. Split the list and start one review for each part.',
    );
  }
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  // The line break after the last address does not make a blank line.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}
