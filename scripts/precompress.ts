import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * Post-build steps for the SPA in dist/: compress once at build time at the highest levels (too slow to do
 * per request), and take the source maps out of what is served.
 */

/** Text formats worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|xml|webmanifest|wasm|ico)$/;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const visit = (p: string) => {
    if (statSync(p).isDirectory()) for (const e of readdirSync(p)) visit(join(p, e));
    else out.push(p);
  };
  visit(dir);
  return out;
}

/**
 * Writes `<file>.br` and `<file>.gz` next to each compressible file, where serveStatic's `precompressed`
 * option finds them. A variant that is not smaller than the original is not written, so the server then
 * sends the original. Returns the bytes before and after (brotli) for the build's summary.
 */
export function precompress(dir: string): { files: number; bytes: number; brotliBytes: number } {
  let files = 0;
  let bytes = 0;
  let brotliBytes = 0;
  for (const file of filesUnder(dir)) {
    if (!COMPRESSIBLE.test(file)) continue;
    const raw = readFileSync(file);
    const br = brotliCompressSync(raw, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    });
    const gz = gzipSync(raw, { level: constants.Z_BEST_COMPRESSION });
    if (br.length < raw.length) writeFileSync(`${file}.br`, br);
    if (gz.length < raw.length) writeFileSync(`${file}.gz`, gz);
    files++;
    bytes += raw.length;
    brotliBytes += Math.min(br.length, raw.length);
  }
  return { files, bytes, brotliBytes };
}

/**
 * Moves every `.map` file from `dist` to the same relative path under `mapsDir` (emptied first). The SPA is
 * built with `sourcemap: 'hidden'`, so no served file points at a map; with the maps outside dist/ there
 * is nothing to serve even by guessing the name. They stay on disk for an error tracker to use.
 */
export function moveSourceMaps(dist: string, mapsDir: string): number {
  rmSync(mapsDir, { recursive: true, force: true });
  let moved = 0;
  for (const file of filesUnder(dist)) {
    if (!file.endsWith('.map')) continue;
    const target = join(mapsDir, relative(dist, file));
    mkdirSync(dirname(target), { recursive: true });
    renameSync(file, target);
    moved++;
  }
  return moved;
}
