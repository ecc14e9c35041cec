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

/** Bytes gathered before one write to stdout, and the longest a line waits for company. */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 100;

/**
 * `destination` omitted: stdout, buffered. One access line per request written one syscall at a time cost
 * the hot path more than the line itself (docs/decisions/005-lean-hot-path.md); lines are gathered up to
 * 4 KB, and flushed at least every 100 ms so a quiet server's log is never behind, and on exit (pino
 * registers that for asynchronous destinations).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const dest =
    destination ??
    (level === 'silent'
      ? undefined
      : pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS }));
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'proplens-bff' } },
    dest,
  );
}

/**
 * A logger for lines whose fields are fixed and never secret (the access line): same destination, level and
 * base fields, without the redaction pass, which doubles the cost of a line (docs/decisions/005-lean-hot-path.md).
 */
export function accessLogger(logger: Logger): Logger {
  const stream = (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  return pino({ level: logger.level, base: logger.bindings() }, stream);
}
