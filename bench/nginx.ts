/**
 * nginx as the bench's anchor: what a proxy that costs almost nothing achieves in front of the reference on
 * this machine (issue 11). Debian's package; where it is missing the bench says so and skips the anchor.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunningNginx {
  url: string;
  version: string;
  /** The first worker process (Linux /proc), to read the CPU it spends; undefined where unknown. */
  workerPid(): number | undefined;
  stop(): void;
}

const SEARCH_PATH = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin'];

/** The nginx binary and its version, or null when it is not installed. */
export function findNginx(): { bin: string; version: string } | null {
  for (const dir of [...(process.env.PATH ?? '').split(':').filter(Boolean), ...SEARCH_PATH]) {
    const bin = join(dir, 'nginx');
    try {
      // `nginx -v` prints to stderr.
      const out = execFileSync(bin, ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return { bin, version: out.trim() || 'nginx' };
    } catch (err) {
      const e = err as { code?: string; stderr?: string; status?: number };
      if (e.code === 'ENOENT' || e.code === 'EACCES') continue;
      if (e.stderr) return { bin, version: e.stderr.trim() };
    }
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, deadlineMs = 10_000) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error('nginx did not start listening');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * nginx in front of `upstreamUrl`: loopback only, a keep-alive upstream pool, no access log, `workers`
 * worker processes, everything (config, pid, temp files) in a temp folder removed on stop.
 */
export async function startNginx(upstreamUrl: string, workers = 1): Promise<RunningNginx | null> {
  const found = findNginx();
  if (!found) return null;
  const upstream = new URL(upstreamUrl);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'proplens-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const conf = `
# Root's workers would otherwise run as nobody, who cannot enter the temp folder.
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes ${workers};
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log stderr error;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  keepalive_requests 1000000;
  upstream reference {
    server ${upstream.hostname}:${upstream.port};
    keepalive 64;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://reference;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
  const confPath = join(dir, 'nginx.conf');
  writeFileSync(confPath, conf);
  const child = spawn(found.bin, ['-p', dir, '-c', confPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child);
  } catch (err) {
    stop();
    throw new Error(`${(err as Error).message}: ${stderr.slice(-2000)}`);
  }
  const workerPid = () => {
    try {
      const pid = child.pid;
      const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
      const first = Number(kids[0]);
      return Number.isInteger(first) && first > 0 ? first : undefined;
    } catch {
      return undefined;
    }
  };
  return { url: `http://127.0.0.1:${port}`, version: found.version, workerPid, stop };
}
