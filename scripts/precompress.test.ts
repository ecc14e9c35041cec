import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { moveSourceMaps, precompress } from './precompress.ts';

let dir: string;
const write = (rel: string, data: string | Buffer) => {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), data);
};
const read = (rel: string) => readFileSync(join(dir, rel));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proplens-precompress-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('precompress', () => {
  it('writes brotli and gzip twins that decode to the original, smaller than it', () => {
    const js = `export const rows = [${'{"address":"100 Main St"},'.repeat(400)}];\n`;
    write('dist/assets/index-abc.js', js);
    write('dist/assets/index-abc.css', `.a{color:red}\n`.repeat(200));
    write('dist/index.html', `<!doctype html>${'<p>PropLens</p>'.repeat(50)}`);
    precompress(join(dir, 'dist'));
    for (const f of ['dist/assets/index-abc.js', 'dist/assets/index-abc.css', 'dist/index.html']) {
      expect(brotliDecompressSync(read(`${f}.br`)).equals(read(f))).toBe(true);
      expect(gunzipSync(read(`${f}.gz`)).equals(read(f))).toBe(true);
      expect(read(`${f}.br`).length).toBeLessThan(read(f).length);
    }
    expect(read('dist/assets/index-abc.js.br').length).toBeLessThan(js.length / 10);
  });

  it('leaves already-compressed formats, and writes no twin larger than the original', () => {
    write('dist/logo.png', Buffer.from('89504e470d0a1a0a', 'hex'));
    write('dist/a.txt', 'a');
    precompress(join(dir, 'dist'));
    expect(existsSync(join(dir, 'dist/logo.png.br'))).toBe(false);
    expect(existsSync(join(dir, 'dist/logo.png.gz'))).toBe(false);
    // gzip's header alone is larger than one byte: the server then sends the original.
    expect(existsSync(join(dir, 'dist/a.txt.gz'))).toBe(false);
  });
});

describe('moveSourceMaps', () => {
  it('moves every map out of the served directory, keeping its relative path', () => {
    write('dist/assets/index-abc.js', 'code');
    write('dist/assets/index-abc.js.map', '{"sources":["src/web/main.tsx"]}');
    write('dist/nested/deep/x.css.map', '{}');
    write('dist-maps/assets/old-hash.js.map', 'from the last build');
    expect(moveSourceMaps(join(dir, 'dist'), join(dir, 'dist-maps'))).toBe(2);
    expect(existsSync(join(dir, 'dist/assets/index-abc.js.map'))).toBe(false);
    expect(existsSync(join(dir, 'dist/nested/deep/x.css.map'))).toBe(false);
    expect(read('dist-maps/assets/index-abc.js.map').toString()).toContain('src/web/main.tsx');
    expect(existsSync(join(dir, 'dist-maps/nested/deep/x.css.map'))).toBe(true);
    expect(read('dist/assets/index-abc.js').toString()).toBe('code');
    // The maps match the current build only.
    expect(existsSync(join(dir, 'dist-maps/assets/old-hash.js.map'))).toBe(false);
  });
});
