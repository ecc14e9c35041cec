import { type NotFoundReason, notFoundReasonText, zipAtEnd } from '../../../../contract/index.ts';

/** A ZIP code the demo data surely holds (the showcase's Congress Avenue), for "try this instead". */
export const DEMO_ZIP_HINT = '78701';

/** ", Austin, TX" or "Austin TX 78701": a city and a two-letter state code after the street. */
const CITY_AND_STATE = /,\s*[^,\d]+(?:,\s*|\s+)[A-Za-z]{2}\b(?:\s+\d{5}(?:-\d{4})?)?\s*$/;

/**
 * What to do about an address nothing matched, said from why (when the service said) and from what was typed:
 * the advice never asks for a city or ZIP code already given.
 */
export function notFoundAdvice(address: string, reason: NotFoundReason | null, demo: boolean): string {
  const zip = zipAtEnd(address);
  switch (reason) {
    case 'no_such_house':
      return `${notFoundReasonText(reason, address)} Check the number; the nearest ones on the street are below.`;
    case 'no_such_street':
      return `${notFoundReasonText(reason, address)} Check the street’s spelling, and the ${zip ? 'ZIP code' : 'city and state'}.`;
    case 'place_not_covered':
      return demo
        ? `The demo data has no properties in ${zip ? `ZIP code ${zip}` : 'that ZIP code'}: it holds a sample of the country. Try an address in ${DEMO_ZIP_HINT}.`
        : `${notFoundReasonText(reason, address)} Check the ZIP code.`;
    default:
      return zip || CITY_AND_STATE.test(address)
        ? 'Check the house number and the street’s spelling.'
        : 'Check the house number and street, or add the city and state or the ZIP code.';
  }
}
