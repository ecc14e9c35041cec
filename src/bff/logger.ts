import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Structured logs. Keys must never reach them: the paths below are censored wherever they appear, and the
 * request log line carries the path only, never headers or bodies.
 */
export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'cookie',
  '*.cookie',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'proplens-bff' } },
    destination,
  );
}
