import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { USPS_SUFFIXES } from '../src/contract/server/usps.ts';
import { type Chunk, checkBundle, findLeaks, readChunks } from './check-bundle.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const scratch = mkdtempSync(join(tmpdir(), 'check-bundle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('findLeaks', () => {
  const chunk = (name: string, sources: string[] | null, code = 'export{}'): Chunk => ({
    name,
    code,
    sources,
  });

  it('names each server-only module a chunk’s map lists, with the chunk', () => {
    const { leaks, unmapped } = findLeaks([
      chunk('dist/assets/index-a.js', ['src/web/main.tsx', 'src/contract/api.ts']),
      chunk('dist/assets/api-client-b.js', [
        'src/contract/match.ts',
        'src/contract/server/usps.ts',
        'src/contract/server/explain-match.ts',
      ]),
    ]);
    expect(leaks).toEqual([
      {
        chunk: 'dist/assets/api-client-b.js',
        module: 'src/contract/server/explain-match.ts',
        by: 'source map',
      },
      { chunk: 'dist/assets/api-client-b.js', module: 'src/contract/server/usps.ts', by: 'source map' },
    ]);
    expect(unmapped).toEqual([]);
  });

  it('finds the suffix table by its text where no map names its module', () => {
    const code = `const t=${JSON.stringify(USPS_SUFFIXES)};export{t}`;
    expect(findLeaks([chunk('dist/assets/search-c.js', ['src/web/x.ts'], code)]).leaks).toEqual([
      { chunk: 'dist/assets/search-c.js', module: 'src/contract/server/usps.ts', by: 'text' },
    ]);
  });

  it('passes browser modules, a folder merely named like the server part, and Rolldown’s runtime without a map', () => {
    const { leaks, unmapped } = findLeaks([
      chunk('dist/assets/property-d.js', ['src/contract/address-tables.ts', 'src/web/server/x.ts']),
      chunk('dist/assets/rolldown-runtime-XKy.js', null),
    ]);
    expect(leaks).toEqual([]);
    expect(unmapped).toEqual([]);
  });

  it('counts a chunk without a map as unchecked', () => {
    expect(findLeaks([chunk('dist/assets/review-e.js', null)]).unmapped).toEqual(['dist/assets/review-e.js']);
  });
});

describe('readChunks', () => {
  it('resolves map sources from the chunk’s folder, whether the map is beside it or moved to <dist>-maps', () => {
    const dist = join(scratch, 'read', 'dist');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    mkdirSync(join(`${dist}-maps`, 'assets'), { recursive: true });
    // As a bundler writes a map's sources: relative to the folder the chunk was written to.
    const sourceFrom = (chunk: string, module: string) => relative(dirname(chunk), resolve(root, module));
    const a = join(dist, 'assets', 'a.js');
    const b = join(dist, 'assets', 'b.js');
    writeFileSync(a, 'a');
    writeFileSync(b, 'b');
    writeFileSync(`${a}.map`, JSON.stringify({ sources: [sourceFrom(a, 'src/contract/server/usps.ts')] }));
    writeFileSync(
      join(`${dist}-maps`, 'assets', 'b.js.map'),
      JSON.stringify({ sources: [sourceFrom(b, 'src/web/main.tsx')] }),
    );
    writeFileSync(join(dist, 'assets', 'b.js.gz'), 'not a chunk');
    expect(readChunks(dist, root)).toEqual([
      { name: 'dist/assets/a.js', code: 'a', sources: ['src/contract/server/usps.ts'] },
      { name: 'dist/assets/b.js', code: 'b', sources: ['src/web/main.tsx'] },
    ]);
  });
});

/**
 * The SPA's own bundler over a one-line entry, with the maps the real build makes: what a web module imports is
 * what the check sees.
 */
async function buildEntry(name: string, entry: string): Promise<string> {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'entry.ts'), entry);
  const { build } = await import('vite');
  await build({
    configFile: false,
    logLevel: 'silent',
    root: dir,
    build: {
      outDir: join(dir, 'dist'),
      emptyOutDir: true,
      sourcemap: 'hidden',
      rollupOptions: { input: join(dir, 'entry.ts') },
    },
  });
  return join(dir, 'dist');
}

const contract = (path: string) => JSON.stringify(resolve(root, 'src/contract', path));

describe('checkBundle over a real build', () => {
  it('fails when a browser module imports the suffix table, naming the module and the chunk', async () => {
    const dist = await buildEntry(
      'planted',
      `import { USPS_SUFFIXES } from ${contract('server/index.ts')};\nconsole.log(USPS_SUFFIXES.length);\n`,
    );
    const { ok, lines } = checkBundle(dist, root);
    expect(ok).toBe(false);
    expect(lines).toContainEqual(
      expect.stringMatching(/^src\/contract\/server\/usps\.ts reached .* in dist\/assets\/entry-[\w-]+\.js /),
    );
  }, 60_000);

  it('passes what the SPA takes from the barrel: schemas, words and small helpers, no server module', async () => {
    const dist = await buildEntry(
      'browser',
      `import { addressProblem, describeMatch, qualityOf, ResolveAnswer, US_STATES, UNIT_DESIGNATORS } from ${contract('index.ts')};\n` +
        'console.log(addressProblem(location.hash), describeMatch({ changes: [] }), qualityOf(null),\n' +
        '  ResolveAnswer.safeParse(location.hash).success, US_STATES.TX, UNIT_DESIGNATORS.APT);\n',
    );
    expect(checkBundle(dist, root)).toEqual({
      ok: true,
      lines: [expect.stringMatching(/^bundle: \d+ chunks, no module/)],
    });
  }, 60_000);
});
