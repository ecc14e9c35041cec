import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The BFF that `npm run dev` starts next to Vite.
const bffPort = process.env.BFF_DEV_PORT ?? '8081';

export default defineConfig({
  plugins: [react(), tailwindcss()],
  server: {
    port: Number(process.env.PORT ?? 5173),
    // The browser's own Host goes through (Vite's shorthand would rewrite it to the BFF's): the BFF's CSRF check
    // compares the Origin with the Host, and refused every sign-in in `npm run dev` with 403.
    proxy: {
      '/api': { target: `http://127.0.0.1:${bffPort}`, changeOrigin: false },
      '/healthz': { target: `http://127.0.0.1:${bffPort}`, changeOrigin: false },
      // The evidence keys /verify checks packets against (Vite answered its own page there).
      '/.well-known': { target: `http://127.0.0.1:${bffPort}`, changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    // Maps are made (for an error tracker) but no served file points at them, and scripts/build.ts moves them
    // out of dist/ into dist-maps/: the browser never downloads 2 MB of our sources.
    sourcemap: 'hidden',
    // Budget: initial JS <= 120 KB gzipped (see `npm run bench`).
    chunkSizeWarningLimit: 400,
  },
  test: {
    // Two files at a time even on two cores (Vitest's default is one fewer than the cores, so one): most server
    // files wait on sockets, child processes, PostgreSQL and Redis, not on the CPU. On one worker the unit step
    // was 315 s of CI's 778 (183 s of it in tests, 48 s importing, 38 s setting up jsdom).
    maxWorkers: 2,
    // Test files share their worker's modules instead of importing everything again for each file: the unit
    // step's import time went from 79 s to under 15 (the server project 158 -> 121 s, the web project 88 -> 26 s,
    // measured alone on a quiet machine). Each file starts its own servers and databases; what the SPA keeps per
    // page (the rate-limit store, storage) is emptied at each file's start (src/web/test/setup.ts).
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          environment: 'node',
          // One initdb for the run, copied for each throwaway PostgreSQL (postgres-process.ts PG_TEMPLATE_ENV).
          globalSetup: ['src/bff/test-support/postgres-template.ts'],
          include: [
            'src/*.test.ts',
            'src/contract/**/*.test.ts',
            'src/evidence-verify/**/*.test.ts',
            'src/reference/**/*.test.ts',
            'src/bff/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          environment: 'jsdom',
          include: ['src/web/**/*.test.{ts,tsx}'],
          setupFiles: ['src/web/test/setup.ts'],
        },
      },
    ],
  },
});
