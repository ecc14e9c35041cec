import { type ChildProcess, spawn } from 'node:child_process';

/**
 * `npm run dev`: the BFF (with the embedded reference unless PROPERTY_API_URL is set) restarting on change,
 * and Vite with hot reload proxying /api to it. One Ctrl-C stops both.
 */
const bffPort = process.env.BFF_DEV_PORT ?? '8081';
const children: ChildProcess[] = [
  spawn(process.execPath, ['--import', 'tsx', '--watch', 'src/main.ts'], {
    stdio: 'inherit',
    env: { ...process.env, PORT: bffPort },
  }),
  spawn(process.execPath, ['node_modules/vite/bin/vite.js'], {
    stdio: 'inherit',
    env: { ...process.env, BFF_DEV_PORT: bffPort },
  }),
];
const stop = () => {
  for (const c of children) c.kill('SIGTERM');
};
for (const c of children)
  c.on('exit', (code) => {
    stop();
    process.exitCode = code ?? 0;
  });
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
