import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

/** ok: PropLens can rely on it; warn: it works, with a caveat; block: PropLens cannot use the service so. */
export type Level = 'ok' | 'warn' | 'block';
export interface Finding {
  topic: string;
  level: Level;
  text: string;
}

/** What the doctor found: each finding, the verdict, and the settings to run with. */
export interface DoctorReport {
  usable: boolean;
  verdict: string;
  findings: Finding[];
  /** The settings PropLens should run with, as .env lines. */
  settings: Record<string, string>;
  requests: number;
  medianLatencyMs: number | null;
}

const MARK = { ok: '✓', warn: '!', block: '✗' } as const;

/** The findings, the verdict and the settings, for a terminal. */
export function renderReport(report: DoctorReport): string {
  const lines = report.findings.map((f) => `${MARK[f.level]} ${f.topic}: ${f.text}`);
  lines.push('');
  lines.push(
    `${report.requests} ${report.requests === 1 ? 'request' : 'requests'} made` +
      (report.medianLatencyMs === null ? '.' : `; median latency ${Math.round(report.medianLatencyMs)} ms.`),
  );
  lines.push('', `Verdict: ${report.verdict}`);
  if (report.usable) {
    lines.push('', 'Settings for .env (or the environment):', ...envLines(report));
  }
  return `${lines.join('\n')}\n`;
}

export function envLines(report: DoctorReport): string[] {
  return Object.entries(report.settings).map(([name, value]) => `${name}=${value}`);
}

/**
 * Writes the settings into `.env`: a line for each setting replaces the one of that name, every other line is
 * kept, and the previous file is copied to `.env.bak` first. Returns the backup's path when one was made.
 */
export function writeEnvFile(file: string, settings: Record<string, string>): string | null {
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let backup: string | null = null;
  if (existsSync(file)) {
    backup = `${file}.bak`;
    copyFileSync(file, backup);
  }
  const pending = new Map(Object.entries(settings));
  const kept = before
    .split(/\r?\n/)
    .map((line) => {
      const name = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
      if (name && pending.has(name)) {
        const value = pending.get(name) as string;
        pending.delete(name);
        return `${name}=${value}`;
      }
      return line;
    })
    .filter((line, i, all) => !(i === all.length - 1 && line === ''));
  const added = [...pending].map(([name, value]) => `${name}=${value}`);
  writeFileSync(
    file,
    `${[...kept, ...(added.length ? ['# Written by npm run doctor', ...added] : [])].join('\n')}\n`,
  );
  return backup;
}
