import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';

/**
 * Reads `.env` from the working directory when there is one, as `npm start`, `npm run cluster` and
 * `npm run doctor` do: variables already set in the environment win. Says which file it read (never a value).
 * Plain JavaScript on Node's own modules, like scripts/start.js.
 */
export function loadEnvFile(file = resolve('.env'), env = process.env, log = console.error) {
  if (!existsSync(file)) return null;
  const values = parseEnv(readFileSync(file, 'utf8'));
  let set = 0;
  for (const [name, value] of Object.entries(values)) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    set++;
  }
  log(`Read ${file} (${set} ${set === 1 ? 'variable' : 'variables'}; the environment's own win).`);
  return file;
}
