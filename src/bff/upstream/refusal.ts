import { type Candidate, UNIT_NOT_FOUND_TEXT } from '../../contract/index.ts';
import { ApiError } from '../errors.ts';
import { keyRefused } from '../refused-keys.ts';
import { parseErrorBody } from './parse.ts';

/**
 * A non-2xx answer as the API's own error. The upstream's text never reaches the browser: an upstream may
 * echo the request (its Authorization header, or the URL with a `query:` key) into its message. What we pass
 * on is our own wording plus structured data (candidates), read from a body the client has already cleared
 * of the key (redact.ts). The upstream's message goes to the log instead (`upstreamMessage`).
 */
export function toRefusal(
  status: number,
  text: string,
  during: 'sign-in' | 'data',
  idField: string | undefined,
  salesContact: string | null,
): { error: ApiError; upstreamCode: string | null; upstreamMessage: string | null } {
  const info = parseErrorBody(text, idField);
  const code = info.code?.toLowerCase() ?? '';
  const sales = salesContact
    ? ` Contact ${salesContact} to upgrade.`
    : " Contact the provider's sales team to upgrade.";
  const error = ((): ApiError => {
    switch (status) {
      case 401:
        return during === 'sign-in'
          ? new ApiError(
              401,
              'invalid_key',
              'That API key was not accepted. Check that you copied all of it, or create a new key in your account settings under Developer → API keys.',
            )
          : keyRefused();
      case 403:
        return new ApiError(
          403,
          'plan_not_eligible',
          `API access needs a professional or enterprise plan, and this key’s account is not on one.${sales}`,
        );
      case 404: {
        const candidates: Candidate[] = info.candidates;
        if (code.includes('unit') || info.building) {
          const building = info.building ? [info.building] : [];
          return new ApiError(404, 'unit_not_found', UNIT_NOT_FOUND_TEXT, {
            candidates: [...building, ...candidates.filter((c) => c.id !== info.building?.id)],
          });
        }
        const reason = info.reason ? { reason: info.reason } : {};
        return new ApiError(404, 'not_found', 'No property matches this address.', { candidates, ...reason });
      }
      case 409:
      case 300:
        return new ApiError(
          409,
          'ambiguous',
          'More than one property matches. Pick one, or add the city and state or the ZIP code.',
          info.total === null
            ? { candidates: info.candidates }
            : { candidates: info.candidates, total: info.total },
        );
      case 400:
      case 422:
        return new ApiError(
          400,
          'bad_request',
          'The property service could not read this request. Check the address and try again.',
        );
      default:
        return new ApiError(
          502,
          'upstream_unavailable',
          `The property service answered with an unexpected status (${status}). Try again shortly.`,
        );
    }
  })();
  return { error, upstreamCode: info.code, upstreamMessage: info.message };
}
