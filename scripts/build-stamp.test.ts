import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprint, isCurrent, recordBuild, SERVER_ENTRY, SERVER_FILES } from './build-stamp.js';

/** A project tree in miniature: the files each part is built from, and the outputs. */
let root: string;
const write = (rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'proplens-stamp-'));
  write('index.html', '<!doctype html>');
  write('package-lock.json', '{}');
  write('src/main.ts', 'main');
  write('src/bff/app.ts', 'app');
  write('src/bff/app.test.ts', 'test');
  write('src/contract/index.ts', 'contract');
  write('src/web/main.tsx', 'web');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Builds a part as far as the stamp is concerned: its output exists and its inputs are recorded. */
function built(part: 'web' | 'server', distDir = 'dist') {
  if (part === 'server') for (const file of SERVER_FILES) write(file, 'compiled');
  else write(join(distDir, 'index.html'), 'built');
  recordBuild(root, part, distDir, fingerprint(root, part));
}

describe('fingerprint', () => {
  it('changes with the sources of its own part only', () => {
    const web = fingerprint(root, 'web');
    const server = fingerprint(root, 'server');
    write('src/bff/app.ts', 'app, edited');
    expect(fingerprint(root, 'server')).not.toBe(server);
    expect(fingerprint(root, 'web')).toBe(web);
    write('src/web/main.tsx', 'web, edited');
    expect(fingerprint(root, 'web')).not.toBe(web);
  });

  it('follows content, not modification times, and ignores tests', () => {
    const server = fingerprint(root, 'server');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src/main.ts'), later, later);
    write('src/bff/app.test.ts', 'test, edited');
    expect(fingerprint(root, 'server')).toBe(server);
  });

  it('sees a new file and a removed one', () => {
    const server = fingerprint(root, 'server');
    write('src/bff/new.ts', '');
    const withNew = fingerprint(root, 'server');
    expect(withNew).not.toBe(server);
    rmSync(join(root, 'src/bff/new.ts'));
    expect(fingerprint(root, 'server')).toBe(server);
  });

  it('changes for both parts when the lock file does', () => {
    const [web, server] = [fingerprint(root, 'web'), fingerprint(root, 'server')];
    write('package-lock.json', '{"lockfileVersion":3}');
    expect(fingerprint(root, 'web')).not.toBe(web);
    expect(fingerprint(root, 'server')).not.toBe(server);
  });
});

describe('isCurrent', () => {
  it('is false with nothing built, true once built, false again after a source edit', () => {
    expect(isCurrent(root, 'server', 'dist')).toBe(false);
    built('server');
    expect(isCurrent(root, 'server', 'dist')).toBe(true);
    write('src/main.ts', 'main, edited');
    expect(isCurrent(root, 'server', 'dist')).toBe(false);
  });

  it('is false when the output was deleted, whatever the record says', () => {
    built('web');
    rmSync(join(root, 'dist'), { recursive: true });
    expect(isCurrent(root, 'web', 'dist')).toBe(false);
  });

  it('keeps each part and each SPA directory apart', () => {
    built('server');
    built('web', 'dist');
    expect(isCurrent(root, 'web', 'dist')).toBe(true);
    expect(isCurrent(root, 'web', join(root, 'dist'))).toBe(true);
    expect(isCurrent(root, 'server', 'dist')).toBe(true);
    // A DIST_DIR never built into is not current, even with an index.html someone put there.
    write('other/index.html', 'stray');
    expect(isCurrent(root, 'web', 'other')).toBe(false);
    // Rebuilding the server leaves the SPA's record alone.
    write('src/main.ts', 'main, edited');
    built('server');
    expect(isCurrent(root, 'web', 'dist')).toBe(true);
  });

  it('takes a server build without its follower thread for no build (the server would run without it)', () => {
    built('server');
    expect(isCurrent(root, 'server', 'dist')).toBe(true);
    rmSync(join(root, SERVER_FILES[1] as string));
    expect(isCurrent(root, 'server', 'dist')).toBe(false);
    expect(SERVER_FILES[0]).toBe(SERVER_ENTRY);
  });

  it('treats an unreadable record as no record', () => {
    built('server');
    write('dist-server/build-stamp.json', '{ not json');
    expect(isCurrent(root, 'server', 'dist')).toBe(false);
  });
});
