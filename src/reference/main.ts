import { DEMO_KEYS } from './accounts.ts';
import { describeDialect } from './dialect.ts';
import { readReferenceConfig, startReference } from './index.ts';

/** `npm run reference`: the Property Intelligence Service alone. */
try {
  const config = readReferenceConfig(process.env);
  const ref = await startReference(config);
  console.log(
    `Property Intelligence Service (reference) on ${ref.url} with ${ref.records.toLocaleString('en-US')} properties`,
  );
  console.log(`Dialect: ${describeDialect(config.dialect)}. OpenAPI: ${ref.url}/openapi.json`);
  console.log(`Demo keys: ${DEMO_KEYS.map((k) => `${k.key} (${k.plan})`).join(', ')}`);
  const stop = () => void ref.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
