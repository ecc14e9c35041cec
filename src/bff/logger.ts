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

/** What the access line says of one request: fixed fields, none a secret (never headers, query or body). */
export interface AccessLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  ms: number;
}

/**
 * Writes the access line, one per request, as pino would at level info (same fields, base bindings and
 * destination, so lines stay in order with the others), but built as one template string: its fields are
 * fixed and never secret, so it needs neither the redaction pass nor pino's general serialiser, which together
 * cost more than the rest of a cached hit's logic (docs/decisions/005-lean-hot-path.md). Nothing is written
 * when the logger's level is above info.
 */
export function accessLogger(logger: Logger): (line: AccessLine) => void {
  if (!logger.isLevelEnabled('info')) return () => {};
  const stream = (logger as unknown as Record<symbol, DestinationStream>)[
    pino.symbols.streamSym
  ] as DestinationStream;
  const base = JSON.stringify(logger.bindings()).slice(1, -1);
  const bindings = base ? `${base},` : '';
  return ({ requestId, method, path, status, ms }) =>
    stream.write(
      `{"level":30,"time":${Date.now()},${bindings}"requestId":${JSON.stringify(requestId)},"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`,
    );
}
