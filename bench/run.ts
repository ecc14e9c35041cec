/**
 * `npm run bench`: the speed and size targets, measured and printed as figures and ratios (never as timed
 * tests, which flake on a shared machine). Loopback only; every loop is bounded in time and count.
 *
 *   BENCH_RECORDS   dataset size (default 1000000)     BENCH_SECONDS  seconds per load phase (default 5)
 *   BENCH_ACCURACY_CASES  messy-input cases per kind of mistake (default 1000)
 *   BENCH_REVIEW_ROWS  rows in the review-pacing phase (default 1000, about 100 s at 600 per 60 s)
 *   BENCH_CONNECTIONS  concurrent connections in the throughput phases (default 32)
 *   BENCH_NGINX_WORKERS  nginx worker processes for the anchor (default 1)
 *   BENCH_ROUNDS  interleaved rounds of BENCH_SECONDS per target in the proxy comparison (default 3)
 *   BENCH_ONLY  a comma-separated subset of sections: reference, accuracy, proxies, pacing, audit, bundle (default all)
 *   BENCH_NODE_ARGS  extra node flags for the servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
 *
 * The BFF runs as `npm start` runs it (scripts/start.js: the compiled server, built first when stale).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type LoadResult, load, loadAtRate, medianOf } from './load.ts';
import { findNginx, startNginx } from './nginx.ts';
import { measurePacing } from './review-pacing.ts';
import { benchAudit } from './sections/audit.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SEED = 20261121;
const KEY = 'pi_demo_enterprise';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const NGINX_WORKERS = Number(process.env.BENCH_NGINX_WORKERS ?? 1);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const SECTIONS = ['reference', 'accuracy', 'proxies', 'pacing', 'audit', 'bundle'] as const;
const only = process.env.BENCH_ONLY?.split(',').map((x) => x.trim());
for (const x of only ?? []) {
  if (!(SECTIONS as readonly string[]).includes(x)) throw new Error(`BENCH_ONLY: unknown section "${x}"`);
}
const wants = (section: (typeof SECTIONS)[number]) => !only || only.includes(section);
const children: ChildProcess[] = [];
/** Other things to stop with the servers (nginx). */
const stops: (() => void)[] = [];
const stopAll = () => {
  for (const c of children.splice(0)) c.kill('SIGTERM');
  for (const stop of stops.splice(0)) stop();
};

const fmt = (n: number, digits = 2) => n.toFixed(digits);
const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');
const row = (label: string, value: string, target = '', note = '') =>
  console.log(`  ${label.padEnd(44)} ${value.padStart(14)}  ${target.padEnd(16)} ${note}`);

// biome-ignore lint/suspicious/noExplicitAny: the child's JSON report, read field by field below
function child(args: string[], env: Record<string, string> = {}): Record<string, any> {
  const out = execFileSync(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 10_000_000,
  });
  return JSON.parse(out.trim().split('\n').pop() as string);
}

/** Everything each server printed, by URL, so a section can count log lines (e.g. upstream 429s). */
const output = new Map<string, () => string>();
/** Each server's process id, by URL, to read the CPU it spent. */
const pidOf = new Map<string, number>();

/** CPU milliseconds a process has used so far (Linux /proc; null elsewhere). */
function cpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 10 ms ticks
  } catch {
    return null;
  }
}

/** Starts a server process and resolves with the first URL it prints matching `pattern`. */
function startServer(
  script: string,
  env: Record<string, string>,
  pattern: RegExp,
  args: string[] = [],
): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
        ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []),
        script,
        ...args,
      ],
      {
        env: { ...process.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(p);
    // Buffers kept as they come (the load generator shares the cores: no string building per chunk), and the
    // start-up line looked for only until it is found.
    const chunks: Buffer[] = [];
    const seen = () => Buffer.concat(chunks).toString();
    let started = false;
    const onData = (d: Buffer) => {
      chunks.push(d);
      if (started) return;
      const m = pattern.exec(seen());
      if (m) {
        started = true;
        output.set(m[1] as string, seen);
        if (p.pid !== undefined) pidOf.set(m[1] as string, p.pid);
        resolve(m[1] as string);
      }
    };
    p.stdout?.on('data', onData);
    p.stderr?.on('data', (d: Buffer) => chunks.push(d));
    p.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${seen().slice(-2000)}`)));
    setTimeout(() => reject(new Error(`${script} did not start: ${seen().slice(-2000)}`)), 180_000).unref();
  });
}

async function signIn(bffUrl: string): Promise<string> {
  const res = await fetch(`${bffUrl}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens' },
    body: JSON.stringify({ apiKey: KEY }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

function bundle() {
  try {
    readFileSync('dist/index.html');
  } catch {
    execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build'], { stdio: 'ignore' });
  }
  const html = readFileSync('dist/index.html', 'utf8');
  const initial = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map(
    (m) => m[1] as string,
  );
  const size = (files: string[]) =>
    files.reduce((s, f) => s + gzipSync(readFileSync(join('dist', f))).length, 0);
  const js = initial.filter((f) => f.endsWith('.js'));
  const lazy = readdirSync('dist/assets').filter(
    (f) => f.endsWith('.js') && !initial.includes(`assets/${f}`),
  );
  return {
    initialJs: size(js),
    css: size(initial.filter((f) => f.endsWith('.css'))),
    lazyJs: size(lazy.map((f) => `assets/${f}`)),
  };
}

async function main() {
  console.log(
    `PropLens benchmark — ${RECORDS.toLocaleString('en-US')} records, ${SECONDS} s per load phase, ${new Date().toISOString()}`,
  );
  console.log(`  node ${process.version}, ${(await import('node:os')).cpus().length} cores\n`);

  const dir = mkdtempSync(join(tmpdir(), 'proplens-bench-'));
  try {
    console.log('Reference service (in-process, SQLite)');
    const { buildMs } = child(['bench/reference-child.ts', 'build', dir, String(RECORDS), String(SEED)]);
    row('first build', `${fmt(buildMs / 1000, 1)} s`, '<= 30 s', verdict(buildMs <= 30_000));
    if (wants('reference')) {
      const q = child(['bench/reference-child.ts', 'query', dir, String(RECORDS), String(SEED)]);
      row(
        'warm start (open + indexes in memory)',
        `${fmt(q.warmMs, 0)} ms`,
        '<= 1000 ms',
        verdict(q.warmMs <= 1000),
      );
      row(
        'resolve, known address: p50',
        `${fmt(q.known.p50, 3)} ms`,
        '<= 0.5 ms',
        verdict(q.known.p50 <= 0.5),
      );
      row('resolve, known address: p95 / p99', `${fmt(q.known.p95, 3)} / ${fmt(q.known.p99, 3)}`);
      row('resolve, messy case and spacing: p50 / p95', `${fmt(q.messy.p50, 3)} / ${fmt(q.messy.p95, 3)}`);
      row('resolve, typo + city, state: p50', `${fmt(q.typoWithPlace.p50, 2)} ms`);
      row(
        'resolve, typo + city, state: p95',
        `${fmt(q.typoWithPlace.p95, 2)} ms`,
        '<= 20 ms',
        verdict(q.typoWithPlace.p95 <= 20),
      );
      row(
        'resolve, typo + ZIP: p50 / p95',
        `${fmt(q.typoWithZip.p50, 2)} / ${fmt(q.typoWithZip.p95, 2)}`,
        '<= 20 ms p95',
        verdict(q.typoWithZip.p95 <= 20),
      );
      row(
        'resolve, typo, no place at all: p50 / p95',
        `${fmt(q.typoNoPlace.p50, 1)} / ${fmt(q.typoNoPlace.p95, 1)}`,
        '(no target)',
        'whole-country street scan',
      );
      row('search (typeahead), page of 20: p50 / p95', `${fmt(q.search.p50, 1)} / ${fmt(q.search.p95, 1)}`);
      row(
        'RSS after open / after queries',
        `${fmt(q.rssAfterOpenMb, 0)} / ${fmt(q.rssAfterQueriesMb, 0)} MB`,
        '<= 300 MB',
        verdict(q.rssAfterQueriesMb <= 300),
      );
      row('known addresses not found (must be 0)', String(q.misses));
    }

    if (wants('accuracy')) {
      const perKind = Number(process.env.BENCH_ACCURACY_CASES ?? 1000);
      console.log(
        `\nResolver accuracy — messy input generated from the dataset, ${perKind} cases per kind of mistake`,
      );
      const a = child(['bench/resolver-accuracy.ts', dir, String(RECORDS), String(SEED), String(perKind)]);
      const pct = (x: number) => `${fmt(x * 100, 1)} %`;
      row('one typo (street or city)', pct(a.oneTypo), '>= 99 %', verdict(a.oneTypo >= 0.99));
      row('two typos', pct(a.twoTypos), '>= 90 %', verdict(a.twoTypos >= 0.9));
      row(
        'no suffix',
        pct(a.noSuffix),
        '>= 95 %',
        `${verdict(a.noSuffix >= 0.95)} (the record, or the candidates where two streets fit)`,
      );
      row('wrong record, of all answers', pct(a.wrongRate), '<= 0.5 %', verdict(a.wrongRate <= 0.005));
      row('a neighbour for a missing house number', String(a.neighbours), '0', verdict(a.neighbours === 0));
      row('resolve, messy input: p50 / p95', `${fmt(a.p50Ms, 2)} / ${fmt(a.p95Ms, 2)} ms`);
      for (const [kind, k] of Object.entries(a.kinds) as [string, Record<string, number>][]) {
        row(
          `  ${kind}`,
          `${k.right} / ${k.cases}`,
          '',
          `${k.wrong} wrong${k.ambiguous ? `, ${k.ambiguous} rightly ambiguous` : ''}${k.leftOut ? `, ${k.leftOut} left out (another address fits better)` : ''}`,
        );
      }
    }

    const common = {
      REFERENCE_DATA_DIR: dir,
      REFERENCE_RECORDS: String(RECORDS),
      REFERENCE_SEED: String(SEED),
    };
    const addresses = (JSON.parse(readFileSync(join(dir, 'sample.json'), 'utf8')) as string[]).slice(0, 1000);
    const q1 = (base: string, path: string) => (i: number) =>
      new URL(`${path}?${new URLSearchParams({ address: addresses[i % addresses.length] as string })}`, base);
    const show = (label: string, r: LoadResult & { cpuUs?: (number | null)[] }) =>
      row(
        label,
        `${fmt(r.rps, 0)} req/s`,
        '',
        `p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, ${r.requests} requests, ${r.errors} errors` +
          (r.cpuUs?.every((x) => x !== null)
            ? `; CPU per request ${r.cpuUs.map((x) => `${fmt(x ?? 0, 0)}`).join(' + ')} µs`
            : ''),
      );
    type Target = { makeUrl: (i: number) => URL; headers: Record<string, string>; servers: string[] };
    /**
     * Every target warmed up once, then measured in ROUNDS interleaved rounds, so the shared machine's other
     * load falls on all of them alike; each figure is the median of its rounds. CPU per request is what the
     * target's server processes (the BFF, then the reference) spent over all rounds, divided by requests.
     */
    const closedLoop = (t: Target) =>
      load(t.makeUrl, t.headers, { seconds: SECONDS, concurrency: CONNECTIONS });
    const compare = async (
      targets: (Target | null)[],
      measure: (t: Target) => Promise<LoadResult> = closedLoop,
    ) => {
      const rounds: LoadResult[][] = targets.map(() => []);
      const cpu = targets.map((t) => t?.servers.map(() => 0) ?? []);
      // Warm-up: JIT, connections, page cache, and the BFF's cache for the cached target.
      for (const t of targets) {
        if (t) await load(t.makeUrl, t.headers, { seconds: 1, concurrency: CONNECTIONS });
      }
      for (let round = 0; round < ROUNDS; round++) {
        for (const [k, t] of targets.entries()) {
          if (!t) continue;
          const before = t.servers.map((u) => cpuMs(pidOf.get(u)));
          rounds[k]?.push(await measure(t));
          const spent = cpu[k] as number[];
          t.servers.forEach((u, i) => {
            const after = cpuMs(pidOf.get(u));
            const start = before[i] ?? null;
            spent[i] = (spent[i] ?? 0) + (after === null || start === null ? Number.NaN : after - start);
          });
        }
      }
      return targets.map((t, k) => {
        if (!t) return null;
        const r = medianOf(rounds[k] as LoadResult[]);
        const cpuUs = (cpu[k] as number[]).map((ms) => (Number.isNaN(ms) ? null : (ms * 1000) / r.requests));
        return { ...r, cpuUs };
      });
    };

    /**
     * Side by side in one run, one phase at a time: the reference direct, nginx in front of it (the
     * anchor: what a proxy that costs almost nothing achieves here), a bare Node proxy (bench/node-proxy.ts:
     * the least a Node proxy can do, the floor for the BFF's stack), the BFF with its cache off (every request
     * a second HTTP exchange), and the BFF with its cache on (the upstream idle). Two conditions: co-located,
     * the reference answering in ~0.2 ms on the same 2 cores as the BFF and the load generator; and 25 ms
     * away, as a remote provider is. Targets (issue 11, docs/decisions/005-lean-hot-path.md) are against nginx.
     */
    if (wants('proxies')) {
      const nginxFound = findNginx();
      if (!nginxFound) {
        console.log(
          '\nnginx is not installed (Debian: apt-get install nginx): the nginx anchor is skipped and the BFF is' +
            ' compared with direct only.',
        );
      }
      for (const [title, faults] of [
        ['co-located, upstream answers in ~0.2 ms', 'none'],
        ['upstream latency 25 ms (a remote provider)', 'latency=25'],
      ] as const) {
        console.log(
          `\nProxies side by side — ${title} (loopback HTTP, separate processes, ${CONNECTIONS} connections,` +
            ` median of ${ROUNDS} interleaved rounds of ${SECONDS} s)`,
        );
        const refUrl = await startServer(
          'src/reference/main.ts',
          { ...common, REFERENCE_PORT: '0', REFERENCE_RATE_LIMIT: '100000000/60', REFERENCE_FAULTS: faults },
          /on (http:\/\/[\d.:]+)/,
        );
        const nginx = nginxFound ? await startNginx(refUrl, NGINX_WORKERS) : null;
        if (nginx) stops.push(nginx.stop);
        // nginx's own CPU per request too, where its worker can be found (one worker: the default).
        const nginxWorker = NGINX_WORKERS === 1 ? nginx?.workerPid() : undefined;
        if (nginx && nginxWorker !== undefined) pidOf.set(nginx.url, nginxWorker);
        const bffEnv = { PROPERTY_API_URL: refUrl, PORT: '0', SALES_CONTACT: 'sales@example.test' };
        const bffUrl = await startServer(
          'scripts/start.js',
          { ...bffEnv, CACHE_TTL_S: '0' },
          /running at (http:\/\/[\d.:]+)/,
        );
        const cachedUrl = await startServer('scripts/start.js', bffEnv, /running at (http:\/\/[\d.:]+)/);
        const bearer = { Authorization: `Bearer ${KEY}` };
        const viaBffHeaders = async (url: string) => ({
          Cookie: await signIn(url),
          'X-Requested-With': 'proplens',
        });
        const nodeProxyUrl = await startServer('bench/node-proxy.ts', {}, /proxy on (http:\/\/[\d.:]+)/, [
          refUrl,
          KEY,
        ]);
        const nginxTarget: Target | null = nginx
          ? {
              makeUrl: q1(nginx.url, '/properties/resolve'),
              headers: bearer,
              servers: nginxWorker === undefined ? [refUrl] : [nginx.url, refUrl],
            }
          : null;
        const nodeTarget: Target = {
          makeUrl: q1(nodeProxyUrl, '/api/properties/resolve'),
          headers: {},
          servers: [nodeProxyUrl, refUrl],
        };
        const bffTarget: Target = {
          makeUrl: q1(bffUrl, '/api/properties/resolve'),
          headers: await viaBffHeaders(bffUrl),
          servers: [bffUrl, refUrl],
        };
        const [direct, viaNginx, viaNode, viaBff, cached] = await compare([
          { makeUrl: q1(refUrl, '/properties/resolve'), headers: bearer, servers: [refUrl] },
          nginxTarget,
          nodeTarget,
          bffTarget,
          {
            makeUrl: q1(cachedUrl, '/api/properties/resolve'),
            headers: await viaBffHeaders(cachedUrl),
            servers: [cachedUrl],
          },
        ]);
        if (!direct || !viaNode || !viaBff || !cached) throw new Error('a phase did not run');
        show('direct to reference: resolve', direct);
        if (viaNginx) show(`nginx in front (${NGINX_WORKERS} worker): resolve`, viaNginx);
        show('bare Node proxy (node:http + undici Pool)', viaNode);
        show('through BFF, cache off: resolve', viaBff);
        show('through BFF, cached hits: resolve', cached);
        if (viaNginx) {
          row('nginx / direct throughput', `${fmt(viaNginx.rps / direct.rps)}x`);
          const uncached = viaBff.rps / viaNginx.rps;
          row('BFF cache off / nginx throughput', `${fmt(uncached)}x`, '>= 0.50x', verdict(uncached >= 0.5));
          const hits = cached.rps / viaNginx.rps;
          row('BFF cached hits / nginx throughput', `${fmt(hits)}x`, '>= 1.00x', verdict(hits >= 1));
          const addedP99 = viaBff.p99 - viaNginx.p99;
          row(
            'p99 added by the BFF over nginx (closed loop)',
            `${fmt(addedP99)} ms`,
            '<= 2 ms',
            verdict(addedP99 <= 2),
          );
          row('bare Node proxy / nginx throughput', `${fmt(viaNode.rps / viaNginx.rps)}x`);
          row('p99 added by the bare Node proxy over nginx', `${fmt(viaNode.p99 - viaNginx.p99)} ms`);
        }
        row('BFF cache off / bare Node proxy throughput', `${fmt(viaBff.rps / viaNode.rps)}x`);
        row('p99 added by the BFF over the bare Node proxy', `${fmt(viaBff.p99 - viaNode.p99)} ms`);
        row('BFF cache off / direct throughput', `${fmt(viaBff.rps / direct.rps)}x`);
        row('BFF cached hits / direct throughput', `${fmt(cached.rps / direct.rps)}x`);
        row('p99 added by the BFF over direct', `${fmt(viaBff.p99 - direct.p99)} ms`);

        // In a closed loop each connection sends again as soon as it is answered, so a server with less
        // throughput queues longer and its latency is connections / throughput: the p99 above mixes the
        // BFF's throughput in. Latency as an SLO states it is measured at a fixed offered load, the same for
        // every target: half what the uncached BFF managed above, so that none of them is saturated.
        const rate = Math.max(10, Math.round(viaBff.rps / 2 / 10) * 10);
        const [nginxAt, nodeAt, bffAt] = await compare([nginxTarget, nodeTarget, bffTarget], (t) =>
          loadAtRate(t.makeUrl, t.headers, { rate, seconds: SECONDS, connections: CONNECTIONS }),
        );
        console.log(
          `  At a fixed ${rate} req/s (open loop, latency from when each request was due, ${CONNECTIONS} connections):`,
        );
        if (nginxAt) show(`nginx in front (${NGINX_WORKERS} worker)`, nginxAt);
        if (nodeAt) show('bare Node proxy', nodeAt);
        if (bffAt) show('through BFF, cache off', bffAt);
        if (nginxAt && bffAt) {
          const added = bffAt.p99 - nginxAt.p99;
          row(
            `p99 added by the BFF over nginx at ${rate} req/s`,
            `${fmt(added)} ms`,
            '<= 2 ms',
            verdict(added <= 2),
          );
        }
        if (nginxAt && nodeAt)
          row(`p99 added by the bare Node proxy over nginx`, `${fmt(nodeAt.p99 - nginxAt.p99)} ms`);
        stopAll();
      }
    }

    if (wants('pacing')) {
      // The issue's own example: 1,000 uncached rows under 600 requests per 60 s should take about 100 s.
      const pacingRows = Number(process.env.BENCH_REVIEW_ROWS ?? 1000);
      const [limit, windowS] = [600, 60];
      console.log(
        `\nReview pacing — ${pacingRows} distinct rows as a review kept on the server, upstream limit ${limit} per ${windowS} s`,
      );
      {
        const refUrl = await startServer(
          'src/reference/main.ts',
          { ...common, REFERENCE_PORT: '0', REFERENCE_RATE_LIMIT: `${limit}/${windowS}`, LOG_LEVEL: 'warn' },
          /on (http:\/\/[\d.:]+)/,
        );
        const bffUrl = await startServer(
          'scripts/start.js',
          {
            PROPERTY_API_URL: refUrl,
            PORT: '0',
            SALES_CONTACT: 'sales@example.test',
            LOG_LEVEL: 'warn',
            DATABASE_DIR: join(dir, 'pacing-db'),
          },
          /running at (http:\/\/[\d.:]+)/,
        );
        const rows = (JSON.parse(readFileSync(join(dir, 'pacing.json'), 'utf8')) as string[]).slice(
          0,
          pacingRows,
        );
        const p = await measurePacing(
          bffUrl,
          await signIn(bffUrl),
          rows,
          limit,
          windowS,
          () => (output.get(bffUrl)?.() ?? '').split('\n').filter((l) => l.includes('"status":429')).length,
        );
        const ideal = (rows.length - 1) / p.allowedPerSecond;
        row(
          'rows answered / matched',
          `${p.rows} / ${p.matched}`,
          `${rows.length}`,
          verdict(p.rows === rows.length),
        );
        row('time for the review', `${fmt(p.seconds, 1)} s`, `~${fmt(ideal, 1)} s`, 'at the allowed rate');
        row(
          'share of the allowed rate used',
          `${fmt(p.usedShare * 100, 1)} %`,
          '>= 98 %',
          verdict(p.usedShare >= 0.98),
        );
        row('upstream 429s', String(p.upstream429), '0', verdict(p.upstream429 === 0));
        row(
          'same rows again (cached)',
          `${fmt(p.cachedSeconds, 2)} s`,
          '',
          `${fmt(p.cachedRows / p.cachedSeconds, 0)} rows/s (target >= 5,000/s)`,
        );
        stopAll();
      }
    }

    if (wants('audit')) await benchAudit(row);

    if (wants('bundle')) {
      console.log('\nWeb bundle (gzipped)');
      const b = bundle();
      row(
        'initial JS',
        `${fmt(b.initialJs / 1024, 1)} KB`,
        '<= 120 KB',
        `${verdict(b.initialJs <= 120 * 1024)} (${fmt((b.initialJs / (120 * 1024)) * 100, 0)}% of budget)`,
      );
      row('initial CSS', `${fmt(b.css / 1024, 1)} KB`);
      row('lazy JS (search screen)', `${fmt(b.lazyJs / 1024, 1)} KB`);
    }
  } finally {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    stopAll();
    process.exit(1);
  },
);
