import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprint, recordBuild, SERVER_ENTRY, SERVER_FILES } from './build-stamp.js';

/**
 * `npm start` as it runs on a pruned install: a project with the start script and no node_modules at all,
 * so any devDependency (or any package) it reached for would fail. The "compiled server" is a stand-in that
 * says it ran.
 */
let root: string;
const write = (rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'proplens-start-'));
  mkdirSync(join(root, 'scripts'));
  for (const f of ['start.js', 'build-stamp.js', 'load-env.js'])
    copyFileSync(join(import.meta.dirname, f), join(root, 'scripts', f));
  write('package.json', '{ "type": "module" }');
  write('package-lock.json', '{}');
  write('index.html', '<!doctype html>');
  write('src/main.ts', 'main');
  write('src/web/main.tsx', 'web');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function start(env: Record<string, string> = {}) {
  const { NODE_PATH: _, ...inherited } = process.env;
  const r = spawnSync(process.execPath, ['scripts/start.js'], {
    cwd: root,
    env: { ...inherited, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function build(part: 'web' | 'server') {
  if (part === 'server') {
    for (const file of SERVER_FILES) write(file, '// the follower thread');
    write(SERVER_ENTRY, 'console.log("compiled server ran");');
  } else write('dist/index.html', 'built');
  recordBuild(root, part, 'dist', fingerprint(root, part));
}

describe('npm start without build tools (after npm prune --omit=dev)', () => {
  it('runs the compiled server when the build is current, building nothing', () => {
    build('web');
    build('server');
    const { status, out } = start();
    expect(out).toContain('compiled server ran');
    expect(out).not.toContain('Building');
    expect(status).toBe(0);
  });

  it('refuses a stale build with the way out, rather than running old code', () => {
    build('web');
    build('server');
    write('src/main.ts', 'main, edited after the build');
    const { status, out } = start();
    expect(status).toBe(1);
    expect(out).toContain('The build (server) is missing or older than its sources');
    expect(out).toContain('npm ci && npm run build');
    expect(out).not.toContain('compiled server ran');
  });

  it('names every missing part on a never-built checkout', () => {
    const { status, out } = start();
    expect(status).toBe(1);
    expect(out).toContain('The build (web, server)');
  });

  it('in an image of build output without sources, runs what is there', () => {
    build('web');
    build('server');
    rmSync(join(root, 'src'), { recursive: true });
    write('package-lock.json', '{"changed":"after the build"}');
    const { status, out } = start();
    expect(out).toContain('compiled server ran');
    expect(status).toBe(0);
    rmSync(join(root, 'dist-server'), { recursive: true });
    expect(start().out).toContain('The build (server) is missing');
  });

  it('with SKIP_WEB_BUILD=1 needs only the server', () => {
    build('server');
    expect(start().status).toBe(1);
    const { status, out } = start({ SKIP_WEB_BUILD: '1' });
    expect(out).toContain('compiled server ran');
    expect(status).toBe(0);
  });
});
