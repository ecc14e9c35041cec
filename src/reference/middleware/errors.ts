import type { ErrorHandler, NotFoundHandler } from 'hono';
import type { Dialect } from '../dialect.ts';
import { errorResponse } from '../wire.ts';

/** Unknown endpoints and unexpected throws, answered in the dialect's error shape like every other error. */
export function notFound(dialect: Dialect): NotFoundHandler {
  return (c) => errorResponse(c, dialect, 404, 'not_found', 'No such endpoint.');
}

export function onError(dialect: Dialect): ErrorHandler {
  return (err, c) => {
    // The detail stays in the log; the client gets the code alone.
    console.error('[reference] unexpected error', err);
    return errorResponse(c, dialect, 500, 'internal', 'Internal error.');
  };
}
