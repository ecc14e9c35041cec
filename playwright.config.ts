import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig, devices } from '@playwright/test';

/**
 * E2E against the real built app: `npm start`'s entry point with the embedded reference service. Playwright
 * cannot download browsers here, so it drives the system's Chromium (CHROMIUM_PATH overrides the path).
 *
 * Debian's headless shell (`chromium-headless-shell`, the build Playwright itself runs headless tests in) is
 * preferred when installed: the same engine without the desktop browser's user interface and compositor. On
 * the search journeys, measured back to back on a quiet machine, it took 45 s of test time where the full
 * browser in headless mode took 58, and about a third less CPU. Without it, the full browser is used.
 */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const chromiumPath =
  process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');
const MAIN_PORT = Number(process.env.E2E_PORT ?? 4310);
const LIMITED_PORT = MAIN_PORT + 1;
const PACED_PORT = MAIN_PORT + 2;
const SECOND_PORT = MAIN_PORT + 3;
const MONITORED_PORT = MAIN_PORT + 4;
const UNATTENDED_PORT = MAIN_PORT + 5;
// A server whose clock the journeys move (e2e/support.ts moveClock) runs its embedded reference on its own port
// plus 10, where they find it.
const movableClock = (port: number) => ({
  REFERENCE_CLOCK: 'controllable',
  EMBEDDED_REFERENCE_PORT: String(port + 10),
});
// Each run starts with empty databases (reviews, the audit trail): one folder per run, one database per server.
process.env.PROPLENS_E2E_DB ??= mkdtempSync(join(tmpdir(), 'proplens-e2e-'));
const databaseDir = (port: number) => join(process.env.PROPLENS_E2E_DB as string, String(port));

// Each server is `npm start` itself (the compiled server, built first if missing or stale) with this environment.
const server = (port: number, env: Record<string, string>) => ({
  port,
  env: {
    PORT: String(port),
    HOST: '127.0.0.1',
    REFERENCE_RECORDS: '20000',
    REFERENCE_DATA_DIR: 'data',
    LOG_LEVEL: 'warn',
    DATABASE_DIR: databaseDir(port),
    ...env,
  },
});

const servers = [
  server(MAIN_PORT, { REFERENCE_RATE_LIMIT: '100000/60' }),
  // 4 requests per 30 s, and the BFF holds a request at most 10 s: the UI's countdown is what recovers. The
  // window is long enough for a slow run to spend it with time left, and the journeys aim at moments seconds
  // wide: a search sent with over 10 s left is refused, one sent with 4 to 7 s left is held for seconds.
  server(LIMITED_PORT, {
    REFERENCE_RATE_LIMIT: '4/30',
    MAX_RATE_LIMIT_WAIT_S: '10',
    ...movableClock(LIMITED_PORT),
  }),
  // 15 per 10 s: a 42-row review takes over 20 s, so a slow page still sees it running (at 15 per 5 s it
  // could finish before a loaded CI machine had drawn the page). Its clock is the journeys' to move
  // (e2e/support.ts fastForwardUntil): once a journey has seen what it looks at, the windows left end at once.
  server(PACED_PORT, { REFERENCE_RATE_LIMIT: '15/10', ...movableClock(PACED_PORT) }),
  // As generous as the journeys' server: the review and sign-in projects.
  server(SECOND_PORT, { REFERENCE_RATE_LIMIT: '100000/60' }),
  // Monitoring (e2e/monitoring.spec.ts): "Every minute" offered and the clock the journey's to move, so a
  // scheduled run comes when the journey moves past the minute, not a real minute later; every record is
  // re-verified each minute the service is up (a re-check finds changes); webhooks go to the journey's receiver
  // on loopback. 4 lookups per 2 s: the next server's review is paced (e2e/unattended.spec.ts).
  server(MONITORED_PORT, {
    REFERENCE_RATE_LIMIT: '4/2',
    REFERENCE_DRIFT_PERCENT: '100',
    MONITOR_MIN_INTERVAL_MINUTES: '1',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...movableClock(MONITORED_PORT),
  }),
  // Work while signed out (e2e/unattended.spec.ts): a BFF alone in front of the monitoring server's reference, as
  // in front of a real service, so it has no demo keys and keeps a key (the demo keeps none: strangers share its
  // account). src/main.ts gives an external upstream no clock to move: its reviews wait real rate windows.
  server(UNATTENDED_PORT, { PROPERTY_API_URL: `http://127.0.0.1:${MONITORED_PORT + 10}/` }),
];
// Where e2e/unattended.spec.ts finds its server (its project's baseURL is the monitoring server's).
process.env.E2E_UNATTENDED_URL = `http://127.0.0.1:${UNATTENDED_PORT}`;
// Where e2e/servers.mjs says all are up (the servers' ports are MAIN_PORT to MAIN_PORT + 5, their embedded
// references' + 10).
const READY_PORT = MAIN_PORT + 6;

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  // Two at a time, never two of one project (each project says `workers: 1`), in the projects' order. Tests
  // that run side by side use different servers, or (review and sign-in) check nothing the other leaves on an
  // account: a search's History, the audit trail, a spent rate window stay with their server. Four workers were tried: the work is the CPU's, not waiting, so on two cores every journey
  // took longer (the journeys' worker alone 388 s, where on two workers it took 220) and the run 409 s, not
  // 351. Two workers once made the rate-limit journey fail in two of three CI runs (it raced a 4 s hold and a
  // 20 s window, then spent its window by typing); it now spends the window through the API and aims at moments
  // seconds wide.
  workers: 2,
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  // Two workers share two cores: a test takes up to a third longer than alone, and 90 s leaves a loaded
  // machine room (the slowest journeys take 20-40 s).
  timeout: 90_000,
  // A whole run takes four to six minutes on two shared cores; under CI a hang fails in 15 with a report, not at
  // CI's own limit.
  globalTimeout: process.env.CI ? 15 * 60_000 : 0,
  expect: { timeout: 10_000 },
  use: {
    ...devices['Desktop Chrome'],
    baseURL: `http://127.0.0.1:${MAIN_PORT}`,
    // A trace of every test, kept for the failures, is a fifth of the browser tests' CPU (its screencast and DOM
    // snapshots: 233 s of CPU for the journeys with it, 188 s without). Under CI only a screenshot of a failure
    // and Playwright's error context (the page's accessibility snapshot) are kept; E2E_TRACE=on keeps traces there
    // too. Locally, traces of failures as before.
    trace: process.env.CI && process.env.E2E_TRACE !== 'on' ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
        // Containers often give /dev/shm only 64 MB; Chromium's renderers then crash or stall.
        '--disable-dev-shm-usage',
      ],
    },
  },
  projects: [
    // The order is the run's: a free worker takes the next file of the first project in this list that has no
    // worker busy. The paced reviews (178 s, one file after the other) and the journeys (326 s) start at once, one
    // on each worker; the review journeys (319 s) follow the paced ones, and the short rate-limit and sign-in
    // projects fill in behind. Measured at load 10-17, the run's wall time past its start over half the journeys'
    // summed time: 1.13 with the rate-limit journeys before the review ones (the review journeys were the run's
    // last 320 s on one worker), 1.07 in this order, 1.06 with the journeys and the review journeys first (the
    // paced ones then the tail).
    // Review journeys tagged @paced, against a low limit (15 per 10 s): reviews longer than a window, so the
    // BFF really paces them and rows really wait (their windows end when the journeys move the server's clock).
    {
      name: 'review-paced',
      // Spec files only: e2e/fixtures/review-files/ holds the fixtures' builder, not journeys.
      testMatch: /review[\w-]*\.spec\.ts$/,
      grep: /@paced/,
      workers: 1,
      // A paced review takes a minute on a quiet machine; on a loaded one (and the axe checks on a running
      // review) one took over 120 s in a CI run.
      timeout: 180_000,
      use: { baseURL: `http://127.0.0.1:${PACED_PORT}` },
    },
    { name: 'journeys', testIgnore: /rate-limit|review|sign-in|unattended|monitoring/, workers: 1 },
    // Every other review journey (results, export, fixing rows, the 5,000-row review of review-large, written
    // straight into the server's database): what a review shows, not how fast it may go, so its server's limit
    // is as generous as the journeys' and a review is done in a moment.
    {
      name: 'review',
      // Spec files only: e2e/fixtures/review-files/ holds the fixtures' builder, not journeys.
      testMatch: /review[\w-]*\.spec\.ts$/,
      grepInvert: /@paced/,
      workers: 1,
      timeout: 120_000,
      use: { baseURL: `http://127.0.0.1:${SECOND_PORT}` },
    },
    // Its own server with a tiny rate limit, so the limit is hit on purpose and nowhere else.
    {
      name: 'rate-limit',
      testMatch: /rate-limit/,
      workers: 1,
      use: { baseURL: `http://127.0.0.1:${LIMITED_PORT}` },
    },
    // The key screen, sign-in and sign-out, cold loads: journeys that look at no account-wide state (no
    // History, no Activity, no reviews), on the second server beside the review journeys.
    {
      name: 'sign-in',
      testMatch: /sign-in/,
      workers: 1,
      use: { baseURL: `http://127.0.0.1:${SECOND_PORT}` },
    },
    // Issue 29's journeys, one after the other (they share the monitoring server's reference, whose clock one of
    // them moves): work while signed out on the BFF without demo keys (the spec's own baseURL, the port above),
    // then a monitored review's alert and webhook.
    {
      name: 'unattended',
      testMatch: /(unattended|monitoring)\.spec\.ts$/,
      workers: 1,
      use: { baseURL: `http://127.0.0.1:${MONITORED_PORT}` },
    },
  ],
  // One launcher starts the servers side by side (Playwright starts a list's servers one after another).
  webServer: {
    command: 'node e2e/servers.mjs',
    url: `http://127.0.0.1:${READY_PORT}/`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: { E2E_SERVERS: JSON.stringify(servers), E2E_READY_PORT: String(READY_PORT) },
  },
});
