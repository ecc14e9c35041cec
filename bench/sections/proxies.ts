import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type LoadResult, load, loadAtRate, medianOf } from '../load.ts';
import { findNginx, startNginx } from '../nginx.ts';
import {
  type BenchContext,
  cpuMs,
  fmt,
  KEY,
  pidOf,
  referenceEnv,
  row,
  signIn,
  startServer,
  stopAll,
  stops,
  verdict,
} from '../support.ts';

/** Where load is sent, with which headers, and which server processes' CPU it is charged to. */
type Target = { makeUrl: (i: number) => URL; headers: Record<string, string>; servers: string[] };
/** `genUs`: the load generator's own CPU per request (this process), which shares the cores with the servers. */
type Measured = LoadResult & { cpuUs: (number | null)[]; genUs: number };

/**
 * Side by side in one run, one phase at a time: the reference direct, nginx in front of it (the anchor: what a
 * proxy that costs almost nothing achieves here), a bare Node proxy (bench/node-proxy.ts: the least a Node proxy
 * can do, the floor for the BFF's stack), the BFF with its cache off (every request a second HTTP exchange), and
 * the BFF with its cache on (the upstream idle), with and without its audit trail, and the floor of any Node
 * server here (bench/hello-server.ts: a cached answer's bytes answered by node:http, and by Hono on it, doing
 * nothing else). Two conditions: co-located, the reference answering in ~0.2 ms on the same 2 cores as the BFF
 * and the load generator; and 25 ms away, as a remote provider is. Targets (issue 26: >= 0.8x uncached, >= 1.5x
 * cached with the trail on; docs/decisions/005-lean-hot-path.md) are against nginx.
 */
export async function benchProxies(ctx: BenchContext) {
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
      `\nProxies side by side — ${title} (loopback HTTP, separate processes, ${ctx.connections} connections,` +
        ` median of ${ctx.rounds} interleaved rounds of ${ctx.seconds} s)`,
    );
    const targets = await startTargets(ctx, faults, nginxFound !== null);
    const viaBff = await closedLoop(ctx, targets);
    await fixedRate(ctx, targets, viaBff);
    stopAll();
  }
}

/** The targets' servers, started for one condition (`faults`: the reference's REFERENCE_FAULTS). */
async function startTargets(ctx: BenchContext, faults: string, nginxFound: boolean) {
  const addresses = (JSON.parse(readFileSync(join(ctx.dir, 'sample.json'), 'utf8')) as string[]).slice(
    0,
    1000,
  );
  const q1 = (base: string, path: string) => (i: number) =>
    new URL(`${path}?${new URLSearchParams({ address: addresses[i % addresses.length] as string })}`, base);
  const refUrl = await startServer(
    'src/reference/main.ts',
    {
      ...referenceEnv(ctx),
      REFERENCE_PORT: '0',
      REFERENCE_RATE_LIMIT: '100000000/60',
      REFERENCE_FAULTS: faults,
    },
    /on (http:\/\/[\d.:]+)/,
  );
  const nginx = nginxFound ? await startNginx(refUrl, ctx.nginxWorkers) : null;
  if (nginx) stops.push(nginx.stop);
  // nginx's own CPU per request too, where its worker can be found (one worker: the default).
  const nginxWorker = ctx.nginxWorkers === 1 ? nginx?.workerPid() : undefined;
  if (nginx && nginxWorker !== undefined) pidOf.set(nginx.url, nginxWorker);
  const { bffUrl, cachedUrl, untrailedUrl } = await startBffs(ctx, refUrl, faults);
  const baseline = await startBaseline(ctx, refUrl, faults);
  const nodeProxyUrl = await startServer('bench/node-proxy.ts', {}, /proxy on (http:\/\/[\d.:]+)/, [
    refUrl,
    KEY,
  ]);
  const bearer = { Authorization: `Bearer ${KEY}` };
  const viaBff = async (url: string) => ({ Cookie: await signIn(url), 'X-Requested-With': 'proplens' });
  const cachedHeaders = await viaBff(cachedUrl);
  const answer = await fetch(q1(cachedUrl, '/api/properties/resolve')(0), { headers: cachedHeaders });
  const [nodeHelloUrl, honoHelloUrl] = await startHelloFloor(await answer.text());
  return {
    direct: { makeUrl: q1(refUrl, '/properties/resolve'), headers: bearer, servers: [refUrl] } as Target,
    nginx: nginx
      ? ({
          makeUrl: q1(nginx.url, '/properties/resolve'),
          headers: bearer,
          servers: nginxWorker === undefined ? [refUrl] : [nginx.url, refUrl],
        } as Target)
      : null,
    node: {
      makeUrl: q1(nodeProxyUrl, '/api/properties/resolve'),
      headers: {},
      servers: [nodeProxyUrl, refUrl],
    },
    bff: {
      makeUrl: q1(bffUrl, '/api/properties/resolve'),
      headers: await viaBff(bffUrl),
      servers: [bffUrl, refUrl],
    } as Target,
    cached: {
      makeUrl: q1(cachedUrl, '/api/properties/resolve'),
      headers: cachedHeaders,
      servers: [cachedUrl],
    } as Target,
    nodeHello: { makeUrl: q1(nodeHelloUrl, '/'), headers: {}, servers: [nodeHelloUrl] } as Target,
    honoHello: { makeUrl: q1(honoHelloUrl, '/'), headers: {}, servers: [honoHelloUrl] } as Target,
    untrailed: {
      makeUrl: q1(untrailedUrl, '/api/properties/resolve'),
      headers: await viaBff(untrailedUrl),
      servers: [untrailedUrl],
    } as Target,
    baseline: baseline
      ? {
          uncached: {
            makeUrl: q1(baseline.bffUrl, '/api/properties/resolve'),
            headers: await viaBff(baseline.bffUrl),
            servers: [baseline.bffUrl, refUrl],
          } as Target,
          cached: {
            makeUrl: q1(baseline.cachedUrl, '/api/properties/resolve'),
            headers: await viaBff(baseline.cachedUrl),
            servers: [baseline.cachedUrl],
          } as Target,
        }
      : null,
  };
}

/**
 * BENCH_BFF_BASELINE: another build of the server (a `dist-server/main.js`, or a `scripts/start.js`), run cache
 * off and cache on beside this one in the same interleaved rounds: a change's before and after under the same
 * load, which on a shared machine moves more between runs than most changes do.
 */
async function startBaseline(ctx: BenchContext, refUrl: string, faults: string) {
  const script = process.env.BENCH_BFF_BASELINE;
  if (!script) return null;
  // Its own SPA build: a start.js builds what is stale into DIST_DIR, which otherwise is this working copy's dist/
  // (the baseline's sources then overwrote the build the page section measures next).
  const env = {
    PROPERTY_API_URL: refUrl,
    PORT: '0',
    SALES_CONTACT: 'sales@example.test',
    DIST_DIR: join(dirname(resolve(script)), '..', 'dist'),
  };
  const db = (name: string) => ({ DATABASE_DIR: join(ctx.dir, `db-${faults}-baseline-${name}`) });
  const running = /running at (http:\/\/[\d.:]+)/;
  const bffUrl = await startServer(script, { ...env, ...db('uncached'), CACHE_TTL_S: '0' }, running);
  const cachedUrl = await startServer(script, { ...env, ...db('cached') }, running);
  return { bffUrl, cachedUrl };
}

/** The BFF three ways, each on the reference: cache off, cache on, and cache on keeping no audit trail. */
async function startBffs(ctx: BenchContext, refUrl: string, faults: string) {
  const bffEnv = { PROPERTY_API_URL: refUrl, PORT: '0', SALES_CONTACT: 'sales@example.test' };
  // Each BFF its own throwaway database (reviews, the audit trail), never the working copy's data/db.
  const db = (name: string) => ({ DATABASE_DIR: join(ctx.dir, `db-${faults}-${name}`) });
  const bffUrl = await startServer(
    'scripts/start.js',
    { ...bffEnv, ...db('uncached'), CACHE_TTL_S: '0' },
    /running at (http:\/\/[\d.:]+)/,
  );
  const cachedUrl = await startServer(
    'scripts/start.js',
    { ...bffEnv, ...db('cached') },
    /running at (http:\/\/[\d.:]+)/,
  );
  // The same, keeping no audit trail: what committing an entry before every answer costs.
  const untrailedUrl = await startServer(
    'scripts/start.js',
    { ...bffEnv, ...db('untrailed'), AUDIT_TRAIL: 'off' },
    /running at (http:\/\/[\d.:]+)/,
  );
  return { bffUrl, cachedUrl, untrailedUrl };
}

/**
 * The floor (bench/hello-server.ts): a cached answer's own bytes, answered by node:http alone and by the
 * BFF's stack (Hono behind @hono/node-server) with nothing else done. Their URLs, node's first.
 */
async function startHelloFloor(body: string): Promise<[string, string]> {
  const helloOf = async (mode: string) =>
    startServer('bench/hello-server.ts', { HELLO_BODY: body }, /hello on (http:\/\/[\d.:]+)/, [mode]);
  return [await helloOf('node'), await helloOf('hono')];
}

type Targets = Awaited<ReturnType<typeof startTargets>>;

/** Closed loop: each connection sends again when answered. Throughput, p99 and CPU per request; ratios to nginx. */
async function closedLoop(ctx: BenchContext, t: Targets): Promise<Measured> {
  const [direct, viaNginx, viaNode, viaBff, cached, untrailed, nodeHello, honoHello, baseBff, baseCached] =
    await compare(ctx, [
      t.direct,
      t.nginx,
      t.node,
      t.bff,
      t.cached,
      t.untrailed,
      t.nodeHello,
      t.honoHello,
      t.baseline?.uncached ?? null,
      t.baseline?.cached ?? null,
    ]);
  if (!direct || !viaNode || !viaBff || !cached || !untrailed || !nodeHello || !honoHello)
    throw new Error('a phase did not run');
  show('direct to reference: resolve', direct);
  if (viaNginx) show(`nginx in front (${ctx.nginxWorkers} worker): resolve`, viaNginx);
  show('bare Node proxy (node:http + undici Pool)', viaNode);
  show('through BFF, cache off: resolve', viaBff);
  show('through BFF, cached hits: resolve', cached);
  show('through BFF, cached hits, no audit trail (AUDIT_TRAIL=off)', untrailed);
  show("floor: node:http answering a cached answer's bytes", nodeHello);
  show("floor: Hono + node:http answering a cached answer's bytes", honoHello);
  if (baseBff && baseCached) showBaseline(baseBff, baseCached, viaBff, cached, viaNginx);
  const trailCost = cached.rps / untrailed.rps;
  row(
    'cached hits: audit trail committed before each answer / no trail',
    `${fmt(trailCost)}x`,
    '>= 0.90x',
    `${verdict(trailCost >= 0.9)}; p50 ${fmt(cached.p50)} vs ${fmt(untrailed.p50)} ms, p99 ${fmt(cached.p99)} vs ${fmt(untrailed.p99)} ms`,
  );
  if (viaNginx) {
    row('nginx / direct throughput', `${fmt(viaNginx.rps / direct.rps)}x`);
    const uncached = viaBff.rps / viaNginx.rps;
    row('BFF cache off / nginx throughput', `${fmt(uncached)}x`, '>= 0.80x', verdict(uncached >= 0.8));
    const hits = cached.rps / viaNginx.rps;
    row('BFF cached hits / nginx throughput', `${fmt(hits)}x`, '>= 1.50x', verdict(hits >= 1.5));
    // What no change in the BFF can beat: a Node server doing nothing but answer the same bytes.
    row('floor: node:http answering the bytes / nginx', `${fmt(nodeHello.rps / viaNginx.rps)}x`);
    row('floor: Hono + node:http answering the bytes / nginx', `${fmt(honoHello.rps / viaNginx.rps)}x`);
    const addedP99 = viaBff.p99 - viaNginx.p99;
    row(
      'p99 added by the BFF over nginx (closed loop)',
      `${fmt(addedP99)} ms`,
      '<= 2 ms',
      verdict(addedP99 <= 2),
    );
    row('bare Node proxy / nginx throughput', `${fmt(viaNode.rps / viaNginx.rps)}x`);
    row('p99 added by the bare Node proxy over nginx', `${fmt(viaNode.p99 - viaNginx.p99)} ms`);
    uncachedBudget(viaNginx, viaNode, viaBff);
  }
  row(
    'BFF cached hits / floor (Hono + node:http answering the bytes)',
    `${fmt(cached.rps / honoHello.rps)}x`,
  );
  row('BFF cache off / bare Node proxy throughput', `${fmt(viaBff.rps / viaNode.rps)}x`);
  row('p99 added by the BFF over the bare Node proxy', `${fmt(viaBff.p99 - viaNode.p99)} ms`);
  row('BFF cache off / direct throughput', `${fmt(viaBff.rps / direct.rps)}x`);
  row('BFF cached hits / direct throughput', `${fmt(cached.rps / direct.rps)}x`);
  row('p99 added by the BFF over direct', `${fmt(viaBff.p99 - direct.p99)} ms`);
  return viaBff;
}

/**
 * What the uncached target leaves the BFF, from this run's own figures: at 0.8x nginx's rate the machine's cores
 * are shared per request by the BFF, the reference and the load generator (their CPU per request as measured in
 * the BFF's phase), so the BFF's share is what the other two leave. Beside it, the bare Node proxy's CPU per
 * request: forwarding and nothing else. The difference is all a BFF may spend on sessions, the cache, validation
 * and the audit trail and still meet the target here.
 */
function uncachedBudget(viaNginx: Measured, viaNode: Measured, viaBff: Measured) {
  const [bffUs, refUs] = viaBff.cpuUs;
  if (bffUs == null || refUs == null) return;
  const perRequest = (availableParallelism() * 1e6) / (0.8 * viaNginx.rps);
  const budget = perRequest - refUs - viaBff.genUs;
  const cpu = (r: Measured) => (r.cpuUs as number[]).map((x) => fmt(x, 0)).join(' + ');
  row(
    'CPU per request, servers + load generator',
    '',
    '',
    `nginx ${cpu(viaNginx)} + ${fmt(viaNginx.genUs, 0)} µs; bare Node proxy ${cpu(viaNode)} + ${fmt(viaNode.genUs, 0)} µs; BFF cache off ${cpu(viaBff)} + ${fmt(viaBff.genUs, 0)} µs`,
  );
  row(
    'BFF cache off: its CPU per request / what 0.8x nginx leaves it',
    `${fmt(bffUs, 0)} / ${fmt(budget, 0)} µs`,
    '',
    `${availableParallelism()} cores over ${fmt(0.8 * viaNginx.rps, 0)} req/s = ${fmt(perRequest, 0)} µs a request, less the reference's ${fmt(refUs, 0)} and the load generator's ${fmt(viaBff.genUs, 0)}; the bare Node proxy alone spends ${fmt(viaNode.cpuUs[0] ?? Number.NaN, 0)}`,
  );
}

/** The baseline build (BENCH_BFF_BASELINE) beside this one: its figures, and this one's ratios to it and to nginx. */
function showBaseline(
  uncached: Measured,
  cached: Measured,
  viaBff: Measured,
  cachedNow: Measured,
  viaNginx: Measured | null | undefined,
) {
  show('baseline build (BENCH_BFF_BASELINE), cache off', uncached);
  show('baseline build (BENCH_BFF_BASELINE), cached hits', cached);
  const toNginx = (r: Measured) => (viaNginx ? `, ${fmt(r.rps / viaNginx.rps)}x nginx` : '');
  const cpu = (r: Measured) => fmt(r.cpuUs[0] ?? Number.NaN, 0);
  row(
    'BFF cache off / baseline build',
    `${fmt(viaBff.rps / uncached.rps)}x`,
    '',
    `baseline ${toNginx(uncached).slice(2) || '-'}; CPU ${cpu(uncached)} -> ${cpu(viaBff)} µs`,
  );
  row(
    'BFF cached hits / baseline build',
    `${fmt(cachedNow.rps / cached.rps)}x`,
    '',
    `baseline ${toNginx(cached).slice(2) || '-'}; CPU ${cpu(cached)} -> ${cpu(cachedNow)} µs`,
  );
}

/**
 * In a closed loop a server with less throughput queues longer, so its p99 mixes its throughput in. Latency as
 * an SLO states it is measured at a fixed offered load, the same for every target: half what the uncached BFF
 * managed in the closed loop, so that none of them is saturated.
 */
async function fixedRate(ctx: BenchContext, t: Targets, viaBff: LoadResult) {
  const rate = Math.max(10, Math.round(viaBff.rps / 2 / 10) * 10);
  const [nginxAt, nodeAt, bffAt] = await compare(ctx, [t.nginx, t.node, t.bff], (target) =>
    loadAtRate(target.makeUrl, target.headers, { rate, seconds: ctx.seconds, connections: ctx.connections }),
  );
  console.log(
    `  At a fixed ${rate} req/s (open loop, latency from when each request was due, ${ctx.connections} connections):`,
  );
  if (nginxAt) show(`nginx in front (${ctx.nginxWorkers} worker)`, nginxAt);
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
    row('p99 added by the bare Node proxy over nginx', `${fmt(nodeAt.p99 - nginxAt.p99)} ms`);
}

/**
 * Every target warmed up once, then measured in interleaved rounds, so the shared machine's other load falls
 * on all of them alike; each figure is the median of its rounds. CPU per request is what the target's server
 * processes (the BFF, then the reference) spent over all rounds, divided by requests.
 */
async function compare(
  ctx: BenchContext,
  targets: (Target | null)[],
  measure: (t: Target) => Promise<LoadResult> = (t) =>
    load(t.makeUrl, t.headers, { seconds: ctx.seconds, concurrency: ctx.connections }),
): Promise<(Measured | null)[]> {
  const rounds: LoadResult[][] = targets.map(() => []);
  const cpu = targets.map((t) => t?.servers.map(() => 0) ?? []);
  const genMs = targets.map(() => 0);
  // Warm-up: JIT, connections, page cache, and the BFF's cache for the cached target.
  for (const t of targets) {
    if (t) await load(t.makeUrl, t.headers, { seconds: 1, concurrency: ctx.connections });
  }
  for (let round = 0; round < ctx.rounds; round++) {
    for (const [k, t] of targets.entries()) {
      if (!t) continue;
      const before = t.servers.map((u) => cpuMs(pidOf.get(u)));
      const gen = process.cpuUsage();
      rounds[k]?.push(await measure(t));
      const spentHere = process.cpuUsage(gen);
      genMs[k] = (genMs[k] ?? 0) + (spentHere.user + spentHere.system) / 1000;
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
    // medianOf sums the rounds' requests: both are over all rounds.
    return { ...r, cpuUs, genUs: ((genMs[k] ?? 0) * 1000) / r.requests };
  });
}

function show(label: string, r: LoadResult & { cpuUs?: (number | null)[] }) {
  row(
    label,
    `${fmt(r.rps, 0)} req/s`,
    '',
    `p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, ${r.requests} requests, ${r.errors} errors` +
      (r.cpuUs?.every((x) => x !== null)
        ? `; CPU per request ${r.cpuUs.map((x) => `${fmt(x ?? 0, 0)}`).join(' + ')} µs`
        : ''),
  );
}
