import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_DIALECT, type Dialect, singleChangeDialects } from '../src/reference/dialect.ts';
import { servedOpenApiDocument } from '../src/reference/openapi-client/generate.ts';

/**
 * `npm run lint:openapi`: the reference's /openapi.json, as served, through Redocly CLI's recommended
 * rules with every warning counted as an error (`recommended-strict`), so "valid" means 0 errors and 0
 * warnings. The document depends on the dialect (key placement, identifier, dates, envelope, errors), so
 * it is checked for the default and for each single-setting change of it: every value of every setting.
 */
function label(dialect: Dialect): string {
  const changed = (Object.keys(dialect) as (keyof Dialect)[]).filter(
    (k) => dialect[k] !== DEFAULT_DIALECT[k],
  );
  return changed.map((k) => `${k}-${dialect[k]}`).join('_') || 'default';
}

const dir = mkdtempSync(join(tmpdir(), 'proplens-openapi-'));
try {
  const files: string[] = [];
  for (const dialect of [DEFAULT_DIALECT, ...singleChangeDialects()]) {
    const file = join(dir, `openapi-${label(dialect)}.json`);
    writeFileSync(file, JSON.stringify(await servedOpenApiDocument(dialect), null, 2));
    files.push(file);
  }
  const redocly = join(import.meta.dirname, '..', 'node_modules', '.bin', 'redocly');
  const run = spawnSync(
    redocly,
    ['lint', '--extends', 'recommended-strict', '--format', 'codeframe', ...files],
    {
      stdio: 'inherit',
      // No telemetry or update check: CI reaches no network but the package registries.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
