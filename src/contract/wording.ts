import type { NotFoundReason } from './upstream.ts';

/*
 * User-facing words said in more than one place (the screen, the export, the print view): one table, so a reason
 * reads the same wherever it is read.
 */

/** Why nothing matched, when the service could tell: the search screen's first sentence, and the export's. */
export const NOT_FOUND_REASON_TEXT: Readonly<Record<NotFoundReason, string>> = {
  no_such_house: 'The street is known there, but not that house number.',
  no_such_street: 'No street of that name is known in that place.',
  place_not_covered: 'The property service holds no properties in that ZIP code.',
};

/** A review row with nothing to look up (a file's row whose address cell is empty, with no parcel number). */
export const NO_ADDRESS_TEXT = 'This row has no address, and no parcel number to look up instead.';
