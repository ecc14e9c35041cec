import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEnvFile } from './load-env.js';

describe('loadEnvFile', () => {
  it('reads .env, lets the environment win, and says which file it read without a value', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proplens-env-'));
    const file = join(dir, '.env');
    writeFileSync(
      file,
      '# settings\nPROPERTY_API_URL=https://api.example.com\nPORT=9000\nSECRET="s3cret value"\n',
    );
    const env: Record<string, string | undefined> = { PORT: '8080' };
    const lines: string[] = [];
    expect(loadEnvFile(file, env, (l) => lines.push(l))).toBe(file);
    expect(env).toEqual({
      PORT: '8080',
      PROPERTY_API_URL: 'https://api.example.com',
      SECRET: 's3cret value',
    });
    expect(lines.join('\n')).toContain(file);
    expect(lines.join('\n')).not.toMatch(/s3cret|example\.com/);
    expect(loadEnvFile(join(dir, 'missing.env'), env, (l) => lines.push(l))).toBeNull();
  });
});
