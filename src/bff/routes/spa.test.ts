import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHarness } from '../test-support/harness.ts';

const dist = mkdtempSync(join(tmpdir(), 'proplens-spa-'));
mkdirSync(join(dist, 'assets'));
writeFileSync(join(dist, 'index.html'), '<!doctype html><title>PropLens</title>');
writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
writeFileSync(
  join(dist, 'assets', 'index-abc123.js.br'),
  Buffer.from([0x8b, 0x07, 0x80, 0x63, 0x6f, 0x6e, 0x03]),
);
writeFileSync(join(dist, 'assets', 'index-abc123.js.map'), '{"sources":["secret.ts"]}');
writeFileSync(join(dist, 'favicon.svg'), '<svg/>');
writeFileSync(join(dist, 'robots.txt'), 'User-agent: *\nDisallow: /\n');
afterAll(() => rmSync(dist, { recursive: true, force: true }));

describe('serving the built SPA', () => {
  const h = createHarness({ distDir: dist });

  it('caches hashed assets for a year and revalidates everything else', async () => {
    const asset = await h.app.request('/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const icon = await h.app.request('/favicon.svg');
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it.each(['/', '/search', '/search?address=1%20Main%20St', '/sign-in'])(
    'answers the client route %s with index.html, revalidated',
    async (path) => {
      const res = await h.app.request(path);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<title>PropLens</title>');
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
    },
  );

  it('answers a missing hashed asset with 404, never index.html cached for a year', async () => {
    const res = await h.app.request('/assets/index-0ldha5h.js');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).not.toMatch(/text\/html/);
    expect(res.headers.get('cache-control') ?? '').not.toContain('immutable');
    expect(await res.text()).not.toContain('<title>');
  });

  it('answers a missing file with an extension with 404', async () => {
    const res = await h.app.request('/missing.png');
    expect(res.status).toBe(404);
  });

  it('never serves source maps', async () => {
    const res = await h.app.request('/assets/index-abc123.js.map');
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('secret.ts');
  });

  it('serves the precompressed file to a browser that accepts it', async () => {
    const res = await h.app.request('/assets/index-abc123.js', {
      headers: { 'Accept-Encoding': 'br, gzip' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    const plain = await h.app.request('/assets/index-abc123.js');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe('console.log(1)');
  });

  it('serves robots.txt as the real file', async () => {
    const res = await h.app.request('/robots.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    expect(await res.text()).toContain('Disallow: /');
  });

  it('keeps /api answers in the API error shape, never the page', async () => {
    const res = await h.call('/api/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('says plainly when the SPA has not been built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'proplens-nodist-'));
    const res = await createHarness({ distDir: empty }).app.request('/search');
    expect(res.status).toBe(503);
    expect(await res.text()).toMatch(/not built/);
    rmSync(empty, { recursive: true, force: true });
  });
});
