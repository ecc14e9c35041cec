import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BuildPart, fingerprint, recordBuild, SERVER_ENTRY } from './build-stamp.js';
import { moveSourceMaps, precompress } from './precompress.ts';

/**
 * `npm run build` (both parts) and `npm start`'s build of a stale part (`scripts/build.ts server`):
 * - web: the SPA with Vite into DIST_DIR (default dist/), precompressed (.br, .gz), source maps moved out
 *   to `<DIST_DIR>-maps/`;
 * - server: src/main.ts and everything it imports compiled by esbuild into one ES module,
 *   dist-server/main.js, with every npm package left as an import, so production runs it from the
 *   installed dependencies and never needs a devDependency; beside it the audit trail's follower thread,
 *   dist-server/audit-follower.js (src/bff/audit/follower-thread.ts, ADR 016).
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function buildWeb(distDir: string): void {
  const hash = fingerprint(root, 'web');
  const dist = resolve(root, distDir);
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--outDir', dist, '--emptyOutDir'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('The web app failed to build; see the output above.');
  const maps = moveSourceMaps(dist, `${dist}-maps`);
  const { files, bytes, brotliBytes } = precompress(dist);
  console.log(
    `web: ${files} files precompressed (${kb(bytes)} -> ${kb(brotliBytes)} brotli); ` +
      `${maps} source maps moved to ${dist}-maps/ (not served)`,
  );
  recordBuild(root, 'web', dist, hash);
}

/** Bare package imports the bundle leaves to node_modules that package.json does not list as dependencies. */
export function undeclaredImports(imports: Iterable<string>, dependencies: Record<string, string>): string[] {
  const missing = new Set<string>();
  for (const spec of imports) {
    if (spec.startsWith('node:') || spec.startsWith('.') || spec.startsWith('/')) continue;
    const parts = spec.split('/');
    const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
    if (!Object.hasOwn(dependencies, name)) missing.add(name);
  }
  return [...missing].sort();
}

export async function buildServer(): Promise<void> {
  const hash = fingerprint(root, 'server');
  // esbuild comes with tsx and vite; it is only needed here, at build time.
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'src/main.ts', 'audit-follower': 'src/bff/audit/follower-thread.ts' },
    outdir: dirname(SERVER_ENTRY),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // npm packages stay imports: better-sqlite3 is native, and the rest are runtime dependencies anyway.
    packages: 'external',
    // Kept next to the server (never served): `npm start` enables them, so stack traces name src/ lines.
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
  });
  const imports = Object.values(result.metafile.outputs).flatMap((o) =>
    o.imports.filter((i) => i.external).map((i) => i.path),
  );
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const missing = undeclaredImports(imports, pkg.dependencies ?? {});
  if (missing.length > 0) {
    // After `npm ci --omit=dev` these would be absent and the server would not start.
    throw new Error(`The server imports packages that are not runtime dependencies: ${missing.join(', ')}`);
  }
  console.log(`server: ${SERVER_ENTRY} (${kb(statSync(join(root, SERVER_ENTRY)).size)})`);
  recordBuild(root, 'server', 'dist', hash);
}

const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;

async function main() {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== 'web' && a !== 'server');
  if (unknown.length > 0) throw new Error(`usage: build.ts [web] [server]; unknown: ${unknown.join(' ')}`);
  const parts: BuildPart[] = args.length > 0 ? (args as BuildPart[]) : ['web', 'server'];
  // DIST_DIR is relative to the working directory, as the server reads it.
  if (parts.includes('web')) buildWeb(resolve(process.env.DIST_DIR || 'dist'));
  if (parts.includes('server')) await buildServer();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
