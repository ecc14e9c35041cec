import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Newest modification time of anything under these paths. */
function newest(paths: string[]): number {
  let latest = 0;
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) for (const e of readdirSync(p)) visit(join(p, e));
    else latest = Math.max(latest, st.mtimeMs);
  };
  for (const p of paths) visit(p);
  return latest;
}

/** Builds the SPA when dist/ is missing or older than its sources, as `npm start` promises. */
export function ensureBuilt(distDir: string): void {
  const index = join(distDir, 'index.html');
  const sources = ['src/web', 'src/contract', 'index.html', 'public', 'vite.config.ts', 'package-lock.json'];
  if (existsSync(index) && statSync(index).mtimeMs >= newest(sources)) return;
  console.log('Building the web app (dist/ is missing or older than its sources)...');
  const vite = join('node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--outDir', distDir, '--emptyOutDir'], {
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('The web app failed to build; see the output above.');
}
