import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseAuthPlacement } from '../src/bff/env.ts';
import { runDoctor } from './doctor/probe.ts';
import { renderReport, writeEnvFile } from './doctor/report.ts';
import { loadEnvFile } from './load-env.js';

/**
 * `npm run doctor -- --url <base URL>`: checks a Property Intelligence Service and prints whether PropLens can
 * use it, with the settings to use. The key comes from PROPERTY_API_KEY or is asked on the terminal without
 * echo; it is never printed, logged or written anywhere.
 */
const USAGE = `Usage: npm run doctor -- --url <base URL> [--auth bearer|header:<Name>|query:<name>]
       [--resolve-path <path>] [--search-path <path>] [--address "<an address the service knows>"]
       [--write-env] [--json]
The API key is read from PROPERTY_API_KEY, or asked for (not echoed).`;

async function main() {
  loadEnvFile();
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      auth: { type: 'string' },
      'resolve-path': { type: 'string' },
      'search-path': { type: 'string' },
      address: { type: 'string' },
      'write-env': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return void console.log(USAGE);
  const url = values.url ?? process.env.PROPERTY_API_URL;
  if (!url || !/^https?:\/\/[^\s?#]+$/.test(url)) {
    console.error(`Give the service's base URL (http:// or https://, no query).\n${USAGE}`);
    process.exit(2);
  }
  const key = process.env.PROPERTY_API_KEY?.trim() || (await askKey());
  const report = await runDoctor({
    url,
    key,
    ...(values.auth ? { auth: parseAuthPlacement(values.auth) } : {}),
    ...(values['resolve-path'] ? { resolvePath: values['resolve-path'] } : {}),
    ...(values['search-path'] ? { searchPath: values['search-path'] } : {}),
    ...(values.address ? { address: values.address } : {}),
  });
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else process.stdout.write(renderReport(report));
  if (values['write-env'] && report.usable) {
    const file = resolve('.env');
    const backup = writeEnvFile(file, report.settings);
    console.log(`\nWrote the settings to ${file}${backup ? ` (the previous file is ${backup})` : ''}.`);
  }
  process.exit(report.usable ? 0 : 1);
}

/** Reads the key from the terminal with echo off; refuses when there is no terminal to ask. */
function askKey(): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    console.error('Set PROPERTY_API_KEY, or run the doctor in a terminal to be asked for the key.');
    process.exit(2);
  }
  process.stderr.write('API key (not shown): ');
  return new Promise((done) => {
    let key = '';
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          input.setRawMode(false);
          input.pause();
          input.off('data', onData);
          process.stderr.write('\n');
          return done(key.trim());
        }
        if (ch === '\u0003') process.exit(130);
        if (ch === '\u007f' || ch === '\b') key = key.slice(0, -1);
        else key += ch;
      }
    };
    input.on('data', onData);
  });
}

await main();
