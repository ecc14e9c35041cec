import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { USPS_SUFFIXES } from '../src/contract/server/usps.ts';

/**
 * `node --import tsx scripts/check-bundle.ts [dist]`, after `npm run build`: fails (exit 1), naming the module
 * and the chunk, when a module only servers may load reached the built SPA. Those are the contract's server
 * part, src/contract/server/ (the USPS tables, parsing an address, explaining a match): src/web imports none
 * of it, and this holds it so, whatever a bundler keeps of a barrel or an import added later brings in.
 *
 * Each chunk's source map lists the modules its code came from (a module imported but dropped whole by tree
 * shaking is not listed), so the check reads the maps: beside the chunk (a plain `vite build`) or where
 * `npm run build` moves them (`<dist>-maps/`, never served). A chunk without a map fails too: nothing could then
 * be said of it; the one exception is Rolldown's runtime chunk, which is emitted without a map because no
 * module's code is in it. The suffix table is also looked for as text, in case a bundler copied a constant into a
 * browser module's code without naming its origin.
 */

/** Modules under this folder (relative to the repository root, `/`-separated) must not reach the browser. */
export const SERVER_ONLY = 'src/contract/server/';

/** Text only a server-only module holds, with the module: its start is enough to know it. */
export const SERVER_ONLY_TEXT: readonly { module: string; text: string }[] = [
  { module: `${SERVER_ONLY}usps.ts`, text: USPS_SUFFIXES.slice(0, USPS_SUFFIXES.indexOf(';', 40)) },
];

/** Rolldown's own runtime (module loading helpers): no module's code, so no map. */
const BUNDLER_RUNTIME = /^rolldown-runtime-[\w-]+\.js$/;

export interface Chunk {
  /** As named in the report, e.g. `dist/assets/api-client-B3Yq.js`. */
  name: string;
  code: string;
  /** Each source as written in the chunk's map, resolved to a path relative to the repository root. */
  sources: readonly string[] | null;
}

export interface Leak {
  chunk: string;
  module: string;
  /** How it was found: the chunk's source map lists the module, or the chunk holds its text. */
  by: 'source map' | 'text';
}

/** What the chunks hold of server-only modules, and which chunks have no map to tell. */
export function findLeaks(chunks: readonly Chunk[]): { leaks: Leak[]; unmapped: string[] } {
  const leaks: Leak[] = [];
  const unmapped: string[] = [];
  for (const chunk of chunks) {
    const base = chunk.name.split('/').at(-1) ?? '';
    if (chunk.sources === null && !BUNDLER_RUNTIME.test(base)) unmapped.push(chunk.name);
    const listed = new Set((chunk.sources ?? []).filter((s) => s.startsWith(SERVER_ONLY)));
    for (const module of [...listed].sort()) leaks.push({ chunk: chunk.name, module, by: 'source map' });
    for (const { module, text } of SERVER_ONLY_TEXT) {
      if (!listed.has(module) && chunk.code.includes(text))
        leaks.push({ chunk: chunk.name, module, by: 'text' });
    }
  }
  return { leaks, unmapped };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const slashed = (path: string) => path.split(sep).join('/');

/**
 * The JavaScript chunks of a built SPA with the sources their maps list, relative to `root`. A source is
 * resolved against the chunk's own folder, where the map was written (the build moves it, not rewrites it).
 */
export function readChunks(dist: string, root: string): Chunk[] {
  const movedMaps = `${dist}-maps`;
  return filesUnder(dist)
    .filter((file) => file.endsWith('.js'))
    .sort()
    .map((file) => {
      const beside = `${file}.map`;
      const moved = join(movedMaps, relative(dist, beside));
      const mapFile = [beside, moved].find((f) => existsSync(f));
      let sources: string[] | null = null;
      if (mapFile) {
        const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources?: string[]; sourceRoot?: string };
        const base = resolve(dirname(file), map.sourceRoot ?? '');
        sources = (map.sources ?? []).map((s) => slashed(relative(root, resolve(base, s))));
      }
      // Named from the dist folder's parent: `dist/assets/index-….js`.
      return { name: slashed(relative(dirname(dist), file)), code: readFileSync(file, 'utf8'), sources };
    });
}

/** The report's lines and whether the bundle passes. */
export function checkBundle(dist: string, root: string): { ok: boolean; lines: string[] } {
  if (!existsSync(dist))
    return { ok: false, lines: [`${dist} does not exist: run \`npm run build\` first.`] };
  const chunks = readChunks(dist, root);
  if (chunks.length === 0)
    return { ok: false, lines: [`${dist} holds no JavaScript chunk: nothing to check.`] };
  const { leaks, unmapped } = findLeaks(chunks);
  const lines = [
    ...leaks.map(
      (l) =>
        `${l.module} reached the browser's bundle, in ${l.chunk} (${l.by === 'source map' ? 'its source map lists it' : 'it holds the module’s text'}): only servers import it, from src/contract/server/index.ts; never src/web, nor src/contract/index.ts`,
    ),
    ...unmapped.map(
      (c) =>
        `${c} has no source map (beside it or in ${basename(dist)}-maps/): what it holds cannot be checked`,
    ),
  ];
  if (lines.length > 0) return { ok: false, lines };
  return {
    ok: true,
    lines: [
      `bundle: ${chunks.length} chunks, no module of ${SERVER_ONLY} in any (source maps and the suffix table's text)`,
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  // DIST_DIR as `npm run build` reads it, relative to the working directory; an argument wins.
  const dist = resolve(process.argv[2] ?? (process.env.DIST_DIR || 'dist'));
  const { ok, lines } = checkBundle(dist, root);
  for (const line of lines) (ok ? console.log : console.error)(ok ? line : `check-bundle: ${line}`);
  process.exit(ok ? 0 : 1);
}
