import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isCurrent, SERVER_ENTRY, SERVER_FILES } from './build-stamp.js';
import { loadEnvFile } from './load-env.js';

loadEnvFile();

/**
 * `npm start`: the production start. Plain JavaScript and Node's own modules only, so it runs after
 * `npm prune --omit=dev`. When the build is missing or older than its sources (a fresh clone's
 * `npm ci && npm start`, or a `git pull`), it builds first, which needs the devDependencies; then it runs the
 * compiled server in this same process, so SIGTERM and SIGINT reach the server's own shutdown directly.
 *
 * SKIP_WEB_BUILD=1 leaves the SPA alone (Vite serves it in `npm run dev`; tests serve a stand-in).
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Relative to the working directory, as the server reads it.
const distDir = resolve(process.env.DIST_DIR || 'dist');

const parts = process.env.SKIP_WEB_BUILD === '1' ? ['server'] : ['web', 'server'];
// An image that holds only what runs (dist/, dist-server/, scripts/, package*.json, node_modules) has no
// sources to compare against: there the build is what it is, as long as it is there.
const artifactsOnly = !existsSync(join(root, 'src'));
const built = {
  web: () => existsSync(join(distDir, 'index.html')),
  server: () => SERVER_FILES.every((f) => existsSync(join(root, f))),
};
const stale = parts.filter((part) => (artifactsOnly ? !built[part]() : !isCurrent(root, part, distDir)));

if (stale.length > 0) {
  const require = createRequire(import.meta.url);
  const hasBuildTools = ['vite/package.json', 'tsx/package.json', 'esbuild/package.json'].every((m) => {
    try {
      require.resolve(m);
      return true;
    } catch {
      return false;
    }
  });
  if (!hasBuildTools) {
    console.error(
      `The build (${stale.join(', ')}) is missing or older than its sources, and the build tools are not ` +
        'installed (devDependencies, e.g. after `npm prune --omit=dev`). Build where they are: ' +
        '`npm ci && npm run build`, then prune.',
    );
    process.exit(1);
  }
  console.log(`Building ${stale.join(' and ')} (missing or older than its sources)...`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join('scripts', 'build.ts'), ...stale], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, DIST_DIR: distDir },
  });
  if (result.status !== 0) {
    console.error('The build failed; see the output above.');
    process.exit(1);
  }
}

// Stack traces name src/ files and lines (the server's maps sit next to it and are never served).
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(root, SERVER_ENTRY)).href);
