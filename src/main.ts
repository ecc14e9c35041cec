/**
 * The composition root, and the only file that wires the parts together: the BFF, and, when no real
 * upstream is configured, the embedded reference Property Intelligence Service in the same process.
 * Every other file imports only its own area and src/contract (docs/decisions/001-composition-root.md).
 * `npm start` runs it compiled (dist-server/main.js, built by scripts/build.ts) from scripts/start.js, which
 * builds first when needed; this file itself never builds, so it runs with production dependencies only.
 */
import { parseAuthPlacement, readBffConfig } from './bff/env.ts';
import { startBff } from './bff/server.ts';
import {
  type Clock,
  DEMO_KEYS,
  readReferenceConfig,
  SALES_CONTACT,
  startReference,
} from './reference/index.ts';

async function main() {
  const config = readBffConfig(process.env);
  let upstreamUrl = config.upstreamUrl;
  let auth = config.auth;
  let closeReference = async () => {};
  let clock: Clock | undefined;
  const embedded = upstreamUrl === undefined;
  if (upstreamUrl === undefined) {
    const refConfig = readReferenceConfig({
      ...process.env,
      // Any free port, unless a test that moves the reference's clock needs to know it.
      REFERENCE_PORT: process.env.EMBEDDED_REFERENCE_PORT ?? '0',
      REFERENCE_HOST: '127.0.0.1',
    });
    const ref = await startReference(refConfig);
    upstreamUrl = ref.url;
    closeReference = ref.close;
    // One time for both sides of the upstream: a test that moves the reference's clock moves the BFF's pacing too.
    if (refConfig.clock === 'controllable') {
      clock = ref.clock;
      console.log(`Embedded reference clock: controllable, for tests (POST ${ref.url}/_test/clock)`);
    }
    // Speak the embedded service's dialect unless told otherwise.
    if (!config.authExplicit) auth = parseAuthPlacement(ref.auth);
    console.log(
      `Embedded reference service: ${ref.records.toLocaleString('en-US')} properties on ${ref.url}`,
    );
  }
  const bff = await startBff(config, {
    upstreamUrl,
    auth,
    demoKeys: embedded ? [...DEMO_KEYS] : null,
    salesContact: config.salesContact ?? (embedded ? SALES_CONTACT : null),
    ...(clock ? { clock } : {}),
  });
  console.log(`\nPropLens is running at ${bff.url}\n`);
  if (embedded) {
    console.log('Demo API keys (embedded reference service; they open demo data only):');
    for (const k of DEMO_KEYS) console.log(`  ${k.key.padEnd(22)} ${k.label}`);
    console.log('\nTry an address such as "1100 Congress Ave, Austin, TX 78701" or "100 Main St".\n');
  } else {
    console.log(`Upstream: ${new URL(upstreamUrl).origin}`);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests, then stopping.`);
    // Never hang forever on a stuck connection.
    setTimeout(() => process.exit(1), 10_000).unref();
    await bff.close();
    await closeReference();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
