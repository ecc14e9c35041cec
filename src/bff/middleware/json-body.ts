import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type * as z from 'zod/mini';
import type { AppEnv } from '../context.ts';
import { ApiError } from '../errors.ts';
import { readJson } from '../http.ts';

/** What a route reads with `c.req.valid('json')` after jsonBody(schema). */
type ValidJson<T> = { in: { json: unknown }; out: { json: T } };

/**
 * A request body checked before the handler runs, on the contract's own schema: at most `maxBytes` (413 with
 * `tooLarge`), JSON by its Content-Type and parsable (400), and valid (400 naming the first problem). The
 * handler reads the parsed value with `c.req.valid('json')`, typed by the schema.
 */
export function jsonBody<T>(
  schema: z.ZodMiniType<T>,
  limit: { maxBytes: number; tooLarge: string },
): MiddlewareHandler<AppEnv, string, ValidJson<T>> {
  const capped = bodyLimit({
    maxSize: limit.maxBytes,
    onError: () => {
      throw new ApiError(413, 'payload_too_large', limit.tooLarge);
    },
  });
  return (c, next) =>
    capped(c, async () => {
      const result = schema.safeParse(await readJson(c));
      if (!result.success)
        throw new ApiError(400, 'bad_request', result.error.issues[0]?.message ?? 'Bad request.');
      c.req.addValidatedData('json', result.data as object);
      await next();
    });
}
