import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fmt, row, verdict } from '../support.ts';

/** The web bundle's gzipped size: initial JS against its 120 KB budget, CSS, and the lazy chunks. */
export function benchBundle() {
  console.log('\nWeb bundle (gzipped)');
  const b = bundleSizes();
  row(
    'initial JS',
    `${fmt(b.initialJs / 1024, 1)} KB`,
    '<= 120 KB',
    `${verdict(b.initialJs <= 120 * 1024)} (${fmt((b.initialJs / (120 * 1024)) * 100, 0)}% of budget)`,
  );
  row('initial CSS', `${fmt(b.css / 1024, 1)} KB`);
  row('lazy JS (search screen)', `${fmt(b.lazyJs / 1024, 1)} KB`);
}

function bundleSizes() {
  try {
    readFileSync('dist/index.html');
  } catch {
    execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build'], { stdio: 'ignore' });
  }
  const html = readFileSync('dist/index.html', 'utf8');
  const initial = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map(
    (m) => m[1] as string,
  );
  const size = (files: string[]) =>
    files.reduce((s, f) => s + gzipSync(readFileSync(join('dist', f))).length, 0);
  const js = initial.filter((f) => f.endsWith('.js'));
  const lazy = readdirSync('dist/assets').filter(
    (f) => f.endsWith('.js') && !initial.includes(`assets/${f}`),
  );
  return {
    initialJs: size(js),
    css: size(initial.filter((f) => f.endsWith('.css'))),
    lazyJs: size(lazy.map((f) => `assets/${f}`)),
  };
}
