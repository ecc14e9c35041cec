import { describe, expect, it } from 'vitest';
import { undeclaredImports } from './build.ts';

describe('undeclaredImports', () => {
  const dependencies = { hono: '4', '@hono/node-server': '2', 'better-sqlite3': '12' };

  it('accepts built-ins, relative paths, and subpaths of declared packages', () => {
    expect(
      undeclaredImports(
        ['node:fs', './x.js', 'hono/cookie', '@hono/node-server/serve-static', 'better-sqlite3'],
        dependencies,
      ),
    ).toEqual([]);
  });

  it('names each package the server would miss after `npm ci --omit=dev`, once', () => {
    expect(
      undeclaredImports(['vite', '@vitejs/plugin-react', 'vite/internal', '@hono/other'], dependencies),
    ).toEqual(['@hono/other', '@vitejs/plugin-react', 'vite']);
  });

  it('does not mistake an inherited property for a dependency', () => {
    expect(undeclaredImports(['constructor', 'toString'], dependencies)).toEqual(['constructor', 'toString']);
  });
});
