import type { NotFoundReason } from './upstream.ts';

/*
 * User-facing words said in more than one place (the search screen, the review's table and export, the print
 * view): one home, so a reason reads the same wherever it is read.
 */

const TRAILING_ZIP = /\b(\d{5})(?:-\d{4})?\s*$/;

/** The ZIP code an address ends with, if it does ("…, TX 78701" → "78701"). */
export function zipAtEnd(address: string): string | null {
  return TRAILING_ZIP.exec(address)?.[1] ?? null;
}

/**
 * Why nothing matched, when the service could tell, in one sentence: the search screen says it first (then what
 * to do), the review's row details and export say it as it is.
 */
export function notFoundReasonText(reason: NotFoundReason, address: string): string {
  const zip = zipAtEnd(address);
  switch (reason) {
    case 'no_such_house':
      return 'The street is known there, but not that house number.';
    case 'no_such_street':
      return `No street of that name is known in ${zip ? `ZIP code ${zip}` : 'that place'}.`;
    case 'place_not_covered':
      return `The property service holds no properties in ${zip ? `ZIP code ${zip}` : 'that ZIP code'}.`;
  }
}

/** A known building without the unit asked for (unit_not_found): the BFF's message, the review's row and export. */
export const UNIT_NOT_FOUND_TEXT = 'The building is known, but not that unit.';

/** A review row with nothing to look up (a file's row whose address cell is empty, with no parcel number). */
export const NO_ADDRESS_TEXT = 'This row has no address, and no parcel number to look up instead.';
