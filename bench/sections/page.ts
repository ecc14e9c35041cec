import { loadavg } from 'node:os';
import { join } from 'node:path';
import { type Browser, type CDPSession, chromium, type Page } from 'playwright-core';
import { openDatabase } from '../../src/bff/db/database.ts';
import { seedReview } from '../../src/bff/test-support/seed-review.ts';
import { type BenchContext, fmt, KEY, referenceEnv, row, startServer, stopAll, verdict } from '../support.ts';
import { answers, tape } from './export.ts';

/**
 * The review page in headless Chromium, against the app as `npm start` runs it (embedded reference, embedded
 * SQLite). A finished review of 100,000 rows (written straight into the review tables) is opened: time to the
 * first rows shown, the page's JS heap, scrolling to the last row, a filter. Then a live review of 20,000 rows
 * runs against an unlimited reference with the page open: the page's long tasks, its heap at the end, and how
 * soon a click on Pause is answered (BENCH_PAGE_LIVE_ROWS=0 leaves that part out).
 */
export async function benchPage(ctx: BenchContext) {
  const rows = Number(process.env.BENCH_PAGE_ROWS ?? 100_000);
  const liveRows = Number(process.env.BENCH_PAGE_LIVE_ROWS ?? 20_000);
  console.log(
    `\nReview page — Chromium, a finished review of ${n(rows)} rows, then a live one of ${n(liveRows)}`,
  );
  const dir = join(ctx.dir, 'page-db');
  const url = await startServer(
    'scripts/start.js',
    {
      ...referenceEnv(ctx),
      // The live review goes as fast as the BFF can answer: the page's worst case.
      REFERENCE_RATE_LIMIT: '100000000/60',
      PORT: '0',
      SALES_CONTACT: 'sales@example.test',
      LOG_LEVEL: 'warn',
      DATABASE_DIR: dir,
    },
    /running at (http:\/\/[\d.:]+)/,
  );
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const session = await signIn(url);
    const database = await openDatabase({ dir });
    let id: string;
    try {
      id = await seedReview(database, tape(session.accountId, rows, answers()));
    } finally {
      await database.close();
    }
    await finishedReview(browser, url, session.cookie, id, rows);
    if (liveRows > 0) await liveReview(browser, url, session.cookie, liveRows);
  } finally {
    await browser.close();
    stopAll();
  }
}

async function signIn(url: string) {
  const res = await fetch(`${url}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens' },
    body: JSON.stringify({ apiKey: KEY }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  const { accountId } = (await res.json()) as { accountId: string };
  return { accountId, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] as string };
}

/** A page signed in with the session's cookie, counting its long tasks from the first script on. */
async function openPage(browser: Browser, url: string, cookie: string) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url }]);
  await context.addInitScript(() => {
    const w = window as unknown as { longTasks: number[]; firstRowAt: number | null; firstTableTop: number };
    w.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
    // When the table's first data row is drawn, from the navigation's start (the page's own clock: polling
    // for it from outside would add up to a second).
    w.firstRowAt = null;
    const seen = new MutationObserver(() => {
      const first = document.querySelector('table tbody tr[aria-rowindex="2"]');
      if (first) {
        w.firstRowAt = performance.now();
        // Where the table stood then (the page's top): late blocks above it must not move it.
        w.firstTableTop = (first.closest('table') as Element).getBoundingClientRect().top + window.scrollY;
        seen.disconnect();
      }
    });
    document.addEventListener('DOMContentLoaded', () =>
      seen.observe(document.body, { childList: true, subtree: true }),
    );
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  return { page, cdp, close: () => context.close() };
}

/** The live JS heap after a full collection (MB). */
async function heapMb(cdp: CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? Number.NaN) / 1e6;
}

async function longTasks(page: Page, clear = false) {
  return page.evaluate((reset) => {
    const w = window as unknown as { longTasks: number[] };
    const all = w.longTasks;
    if (reset) w.longTasks = [];
    return { count: all.length, total: all.reduce((a, b) => a + b, 0), longest: Math.max(0, ...all) };
  }, clear);
}

const results = (page: Page) => page.getByRole('table', { name: 'Results' });

async function finishedReview(browser: Browser, url: string, cookie: string, id: string, rows: number) {
  const { page, cdp, close } = await openPage(browser, url, cookie);
  try {
    // Warm: the SPA's code comes from the browser's cache, as for a reviewer who has used the app before. Opened
    // BENCH_PAGE_OPENS times (each from the search screen), the median reported: one open on a shared machine
    // varies by 2x.
    const opens: Opening[] = [];
    let t = 0;
    for (let i = 0; i < Math.max(1, Number(process.env.BENCH_PAGE_OPENS ?? 3)); i++) {
      await page.goto(url);
      await page.getByRole('heading', { name: 'Find a property' }).waitFor();
      t = performance.now();
      await page.goto(`${url}/review/${id}`);
      await results(page).locator('tbody tr[aria-rowindex="2"]').waitFor();
      opens.push(await opening(page));
    }
    const first = median(opens.map((o) => o.first));
    row(
      'first rows shown, opening it',
      `${fmt(first, 2)} s`,
      '<= 2 s',
      `${verdict(first <= 2)} (median of ${opens.map((o) => fmt(o.first, 2)).join(', ')})`,
    );
    // Where that time went: the session, the review's summary and its first page of rows (asked together as
    // the page's script starts), then drawing it.
    const at = (k: keyof Opening) => fmt(median(opens.map((o) => o[k])), 2);
    const drawn = median(opens.map((o) => o.first - Math.max(o.session, o.firstPage)));
    row(
      '  session / summary / first page answered',
      `${at('session')} / ${at('summary')} / ${at('firstPage')} s`,
      '',
      `drawn ${fmt(drawn, 2)} s after both; load ${loadAverage()}`,
    );
    if (!(await everyRow(page, cdp, rows, t))) return;
    await workTable(page, rows);
  } finally {
    await close();
  }
}

/** Every row read into the page (timed from the open's start `t`), where the table ended, and the page's heap. */
async function everyRow(page: Page, cdp: CDPSession, rows: number, t: number): Promise<boolean> {
  const all = await page
    .getByText(`Showing all ${rows.toLocaleString('en-US')} rows`)
    .waitFor({ timeout: 300_000 })
    .then(() => (performance.now() - t) / 1000)
    .catch(() => null);
  row('  every row read, in the counters', all === null ? 'over 300 s' : `${fmt(all, 2)} s`);
  if (all === null) return false;
  const reads = await rowReads(page);
  row(
    '    its pages: count / bytes a row',
    `${reads.pages} / ${fmt(reads.bytes / rows, 0)} B`,
    '',
    `waiting on the server ${fmt(reads.waiting, 2)} s, receiving ${fmt(reads.receiving, 2)} s (summed over pages)`,
  );
  await page
    .getByRole('figure', { name: 'Records by source' })
    .locator('.recharts-bar-rectangle')
    .first()
    .waitFor();
  const moved = await results(page).evaluate(
    (table) =>
      table.getBoundingClientRect().top +
      window.scrollY -
      (window as unknown as { firstTableTop: number }).firstTableTop,
  );
  row('  results table moved after its first rows', `${fmt(moved, 0)} px`, '0 px', verdict(moved === 0));
  const heap = await heapMb(cdp);
  row('JS heap with it open', `${fmt(heap, 0)} MB`, '<= 300 MB', verdict(heap <= 300));
  return true;
}

/** What a reviewer does with the table: scroll to its end, filter it, export it. */
async function workTable(page: Page, rows: number) {
  let start = performance.now();
  await results(page).evaluate((table) => {
    const scroller = table.parentElement as HTMLElement;
    scroller.scrollTop = scroller.scrollHeight;
  });
  await results(page)
    .locator(`tr[aria-rowindex="${rows + 1}"]`)
    .waitFor();
  const scrolled = performance.now() - start;
  row('scroll to the last row', `${fmt(scrolled, 0)} ms`, '<= 1000 ms', verdict(scrolled <= 1000));

  start = performance.now();
  await page.getByRole('combobox', { name: 'Outcome' }).selectOption({ label: 'Not found' });
  await page.getByText(/^Showing [\d,]+ of [\d,]+ rows, filtered by/).waitFor();
  const filtered = performance.now() - start;
  row('filter by outcome', `${fmt(filtered, 0)} ms`, '<= 1000 ms', verdict(filtered <= 1000));

  start = performance.now();
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 120_000 }),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const failure = await download.failure();
  const exported = (performance.now() - start) / 1000;
  row('Export CSV, downloaded', `${fmt(exported, 2)} s`, '<= 5 s', verdict(!failure && exported <= 5));
}

async function liveReview(browser: Browser, url: string, cookie: string, total: number) {
  const headers = { 'Content-Type': 'application/json', 'X-Requested-With': 'proplens', Cookie: cookie };
  const res = await fetch(`${url}/api/reviews`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      clientToken: `bench-page-${Date.now()}`,
      name: `Live ${total}`,
      kind: 'paste',
      columns: [],
      totalRows: total,
    }),
  });
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  const { page, cdp, close } = await openPage(browser, url, cookie);
  try {
    await page.goto(`${url}/review/${id}`);
    await page.getByRole('heading', { name: `Live ${total}` }).waitFor();
    await longTasks(page, true);
    // Its rows go in now, with the page open: it follows the review from its first answer.
    for (let first = 0, index = 0; first < total; first += 2_000, index++) {
      const rows = Array.from({ length: Math.min(2_000, total - first) }, (_, i) => ({
        address: liveAddress(first + i),
      }));
      const put = await fetch(`${url}/api/reviews/${id}/chunks`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ index, firstRow: first, rows, last: first + rows.length >= total }),
      });
      if (put.status !== 200) throw new Error(`chunk answered ${put.status}`);
    }
    const t = performance.now();
    const progress = page.getByRole('progressbar', { name: 'Review progress' });
    const answered = async () => Number(await progress.getAttribute('aria-valuenow'));
    // Half way, a reviewer pauses it: how long from the click to the next frame drawn.
    while ((await answered()) < total / 2) await page.waitForTimeout(200);
    const click = await timedClick(page);
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByTestId('review-status').getByText(/^Done/).waitFor({ timeout: 600_000 });
    const seconds = (performance.now() - t) / 1000;
    row(
      'live review, rows answered',
      `${fmt(total / seconds, 0)}/s`,
      '',
      `${n(total)} rows in ${fmt(seconds, 1)} s`,
    );
    const tasks = await longTasks(page);
    row(
      '  page long tasks meanwhile: count / total',
      `${tasks.count} / ${fmt(tasks.total / 1000, 1)} s`,
      '',
      `${fmt((100 * tasks.total) / 1000 / seconds, 0)} % of the run`,
    );
    row('  longest task', `${fmt(tasks.longest, 0)} ms`, '<= 200 ms', verdict(tasks.longest <= 200));
    row('  click on Pause to the next frame', `${fmt(click, 0)} ms`, '<= 100 ms', verdict(click <= 100));
    const heap = await heapMb(cdp);
    row('  JS heap at the end', `${fmt(heap, 0)} MB`, '<= 300 MB', verdict(heap <= 300));
  } finally {
    await close();
  }
}

const n = (x: number) => x.toLocaleString('en-US');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** One opening of the review, in seconds from the navigation's start. */
interface Opening {
  first: number;
  session: number;
  summary: number;
  firstPage: number;
}

/** When the first row was drawn, and when the session, the summary and the first page of rows were answered. */
function opening(page: Page): Promise<Opening> {
  // No functions declared inside: the page runs this as source, without the bench's helpers (tsx's __name).
  return page.evaluate(
    (patterns) => {
      const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const [session, summary, firstPage] = patterns.map(
        (p) => (entries.find((e) => new RegExp(p).test(e.name))?.responseEnd ?? Number.NaN) / 1000,
      ) as [number, number, number];
      const first = (window as unknown as { firstRowAt: number | null }).firstRowAt ?? Number.NaN;
      return { first: first / 1000, session, summary, firstPage };
    },
    ['/api/session$', '/api/reviews/[^/]+$', '/rows\\?run=\\d+&limit=100(&[a-z]+=\\d)*$'],
  );
}

/**
 * The last opening's reads of rows after its first page, from the page's resource timings: how many, their
 * bytes (decoded), and the seconds spent waiting for the first byte and receiving the rest, summed over pages.
 */
function rowReads(page: Page) {
  return page.evaluate(() => {
    const reads = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((e) =>
      /\/rows\?run=\d+&limit=\d+(&[a-z]+=\d)*&cursor=/.test(e.name),
    );
    return {
      pages: reads.length,
      bytes: reads.reduce((a, e) => a + e.decodedBodySize, 0),
      waiting: reads.reduce((a, e) => a + e.responseStart - e.requestStart, 0) / 1000,
      receiving: reads.reduce((a, e) => a + e.responseEnd - e.responseStart, 0) / 1000,
    };
  });
}

/** The machine's 1-minute load average: the figures above are wall times on cores others share. */
const loadAverage = () => fmt(loadavg()[0] ?? 0, 1);

/**
 * A real click on Pause (Playwright's, actionability checks and all), timed in the page from the event's
 * timestamp to the first frame after its handler ran: what a reviewer waits for before the page answers.
 */
async function timedClick(page: Page): Promise<number> {
  await page.evaluate(() => {
    const w = window as unknown as { clickMs: Promise<number> };
    w.clickMs = new Promise((resolve) => {
      document.addEventListener(
        'click',
        (e) => requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - e.timeStamp))),
        { once: true, capture: true },
      );
    });
  });
  await page.getByRole('button', { name: 'Pause' }).click();
  return page.evaluate(() => (window as unknown as { clickMs: Promise<number> }).clickMs);
}

/** Addresses spread over the reference's streets: some found, many not, each looked up (no two alike). */
function liveAddress(i: number): string {
  return `${100 + (i % 9_000)} ${['Main St', 'Oak Ave', 'Elm St', 'Park Rd'][i % 4]} Unit ${i}, Springfield, IL 62701`;
}
