import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { accessLogger, createLogger } from './logger.ts';

const loggerPath = fileURLToPath(new URL('./logger.ts', import.meta.url));

/**
 * A BFF-shaped process: logs a line when the parent says `log`, logs one more and exits on `exit`. Its stdout
 * is a pipe, as under a process supervisor.
 */
function child() {
  const script = `
    const { createLogger } = await import(${JSON.stringify(loggerPath)});
    const logger = createLogger('info');
    let n = 0;
    process.stdin.on('data', (d) => {
      for (const cmd of String(d).split('\\n').filter(Boolean)) {
        if (cmd === 'log') logger.info({ n: ++n, apiKey: 'pi_secret_key_123' }, 'request');
        if (cmd === 'exit') { logger.info('last words'); process.exit(0); }
      }
    });
    process.stdout.write('ready\\n');
  `;
  const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  p.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters.splice(0)) {
      if (out.includes(w.text)) w.resolve();
      else waiters.push(w);
    }
  });
  const seen = (text: string) =>
    new Promise<void>((resolve) => {
      if (out.includes(text)) resolve();
      else waiters.push({ text, resolve });
    });
  const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()));
  return { send: (cmd: string) => p.stdin.write(`${cmd}\n`), seen, exited, output: () => out };
}

describe('the buffered production log', () => {
  it('is never behind on a quiet server, loses nothing at exit, and redacts keys', async () => {
    const c = child();
    await c.seen('ready');
    // One line and no more traffic: the periodic flush still delivers it (the test would time out if not).
    c.send('log');
    await c.seen('"n":1');
    c.send('log');
    c.send('log');
    c.send('exit');
    await c.exited;
    const lines = c
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['request', 'request', 'request', 'last words']);
    expect(c.output()).not.toContain('pi_secret_key_123');
    expect(lines[0]).toContain('"apiKey":"[redacted]"');
  }, 20_000);
});

describe('the access line', () => {
  const capture = (level: string) => {
    const lines: string[] = [];
    const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
    return { lines, logger };
  };
  const fields = { requestId: 'r-1', method: 'GET', path: '/api/x"\n{"level":60}', status: 404, ms: 3 };

  it('is the line pino would write at info: same fields, bindings and destination, escaped', () => {
    const { lines, logger } = capture('info');
    accessLogger(logger)(fields);
    logger.info(fields, 'request');
    const [ours, pinos] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]?.endsWith('}\n')).toBe(true);
    expect(lines[0]?.split('\n')).toHaveLength(2); // one line: a newline in the path cannot forge another
    expect(Object.keys(ours ?? {})).toEqual(Object.keys(pinos ?? {}));
    expect({ ...ours, time: 0 }).toEqual({ ...pinos, time: 0 });
    expect(typeof ours?.time).toBe('number');
  });

  it('is not written when the level is above info', () => {
    const { lines, logger } = capture('warn');
    accessLogger(logger)(fields);
    expect(lines).toEqual([]);
  });
});
