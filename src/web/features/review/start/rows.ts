import {
  AddressInput,
  addressKey,
  addressProblem,
  MAX_ADDRESS_LENGTH,
  MAX_REVIEW_BYTES,
  MAX_REVIEW_ROWS,
  type ReviewRowResult,
} from '../../../../contract/index.ts';

/** Most rows in one review, and the largest input (pasted text or file) we read: the server's limits. */
export { MAX_REVIEW_ROWS };
export const MAX_INPUT_BYTES = MAX_REVIEW_BYTES;

export { MAX_ADDRESS_LENGTH };

/**
 * A row before it is sent: pending, or failed with why when refused here (it is sent all the same, and the BFF
 * refuses it the same way, without a lookup).
 */
export type DraftRow = Pick<ReviewRowResult, 'index' | 'input' | 'cells' | 'error'> & {
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
  /** An uploaded file's header, in order (each row's cells follow it); absent for pasted text. */
  columns?: string[];
}

export class InputError extends Error {}

/**
 * Turns addresses as given into review rows. A blank input is skipped and counted; an input the contract
 * refuses (over 512 characters, control characters), a web link or a line without a letter or digit becomes a
 * failed row that is never sent, so every other row still goes ahead; a repeat of an earlier address stays in
 * place (the runner looks it up once).
 */
export function prepareRows(
  inputs: Iterable<string>,
  /** Each input's own cells (a CSV row), in input order: kept with its row so the export joins back. */
  cellsOf?: readonly (readonly string[])[],
): PreparedRows {
  const rows: PreparedRows['rows'] = [];
  const seen = new Set<string>();
  let skippedBlank = 0;
  let refused = 0;
  let duplicates = 0;
  let position = -1;
  for (const raw of inputs) {
    position++;
    const input = raw.trim();
    const cells = cellsOf?.[position];
    const own = cells ? { cells: [...cells] } : {};
    if (input === '') {
      skippedBlank++;
      continue;
    }
    if (rows.length >= MAX_REVIEW_ROWS) {
      throw new InputError(
        `That is more than ${MAX_REVIEW_ROWS.toLocaleString('en-US')} addresses. Split the list and start one review for each part.`,
      );
    }
    const index = rows.length;
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
          message:
            notAddress ??
            (input.length > MAX_ADDRESS_LENGTH
              ? `Longer than ${MAX_ADDRESS_LENGTH} characters: shorten it to the street address.`
              : (checked.error?.issues[0]?.message ?? 'That is not an address.')),
        },
      });
      continue;
    }
    const key = addressKey(input);
    if (seen.has(key)) duplicates++;
    else seen.add(key);
    rows.push({ index, input, ...own, outcome: 'pending' });
  }
  return { rows, skippedBlank, refused, duplicates };
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
