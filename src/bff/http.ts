import type { Context } from 'hono';
import { ApiError } from './errors.ts';

/** A JSON request body, or 400: the content type must say JSON and the body must parse. */
export async function readJson(c: Context): Promise<unknown> {
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    throw new ApiError(400, 'bad_request', 'Send JSON with Content-Type: application/json.');
  }
  return c.req.json().catch((err: unknown) => {
    // A body the client stopped sending is its own doing; the error handler sees the aborted request.
    if (c.req.raw.signal.aborted) throw err;
    return null;
  });
}

/** 405 with the Allow header RFC 9110 requires. */
export function methodNotAllowed(allow: string, message: string) {
  return (c: Context): never => {
    c.header('Allow', allow);
    throw new ApiError(405, 'method_not_allowed', message);
  };
}
