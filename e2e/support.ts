import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { CSRF_HEADER, ReviewSummary } from '../src/contract/index.ts';

/**
 * Fails with the list of violations, so a report says what to fix.
 *
 * Legacy mode runs `axe.run` in the page itself. The default mode runs axe in every frame and then opens a
 * blank page, injects axe into it again and merges the frames' results there: the same rules over the same
 * nodes for a page without cross-origin frames (the app has no frames at all), at twice the time, which was
 * a third of the browser tests' run. Compared on the key screen, a record and review results, light and
 * dark: identical violations, passes, incomplete and inapplicable rules, node for node.
 */
export async function expectNoAxeViolations(page: Page, context: string) {
  // A frame would need the default mode again (legacy mode leaves cross-origin frames untested).
  expect(
    page.frames().map((f) => f.url()),
    `frames on ${context}`,
  ).toEqual([page.url()]);
  // Colours mid-transition are neither the old theme's nor the new one's: after a colour-scheme switch a
  // button's `transition-colors` ran for 150 ms, and axe once measured a light-theme text on a dark-theme
  // ground halfway there. Contrast is judged on the colours the page settles on.
  // Only running animations that end (a running review's spinner never does), and for 2 s at the most: the
  // app's transitions take 150 ms, and one that outlasts that is named rather than waited out to the timeout.
  const unsettled = await page.evaluate(async () => {
    const ending = document
      .getAnimations()
      .filter(
        (a) => a.playState === 'running' && Number.isFinite(Number(a.effect?.getComputedTiming().endTime)),
      );
    const settled = Promise.allSettled(ending.map((a) => a.finished)).then(() => true);
    const late = new Promise<boolean>((done) => setTimeout(() => done(false), 2_000));
    if (await Promise.race([settled, late])) return [];
    return ending
      .filter((a) => a.playState === 'running')
      .map((a) =>
        a instanceof CSSTransition
          ? `transition of ${a.transitionProperty}`
          : `animation ${a.id || a.constructor.name}`,
      );
  });
  expect(unsettled, `animations still running on ${context}`).toEqual([]);
  const results = await new AxeBuilder({ page }).setLegacyMode().analyze();
  const summary = results.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
  );
  expect(summary, `axe violations on ${context}`).toEqual([]);
}

/** Signs in with the demo key through the key screen, as a person does: what the sign-in journeys look at. */
export async function signInThroughKeyScreen(page: Page) {
  await page.goto('/');
  await page.getByRole('button', { name: 'Use demo key' }).click();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  // The search screen loads lazily: wait for what the person actually sees.
  await expect(page.getByRole('heading', { name: 'Find a property' })).toBeVisible();
}

/**
 * Starts a journey signed in with the demo key, as a returning person's browser is: the session comes from the
 * BFF's sign-in (`POST /api/session`, the request the key screen sends; its cookie lands in this page's
 * context), then the search screen opens. The key screen itself is the sign-in journeys' (sign-in.spec.ts,
 * signInThroughKeyScreen); every other journey skips it, two to four seconds of each on two busy cores.
 */
export async function signInWithDemoKey(page: Page, apiKey = 'pi_demo_professional') {
  const answer = await page.request.post('/api/session', {
    data: { apiKey },
    headers: { [CSRF_HEADER.name]: CSRF_HEADER.value },
  });
  expect(answer.ok(), `sign-in answered ${answer.status()}`).toBe(true);
  await page.goto('/search');
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Find a property' })).toBeVisible();
}

/** The e2e servers' dataset (playwright.config: REFERENCE_RECORDS 20000, the default seed). */
const E2E_RECORDS = 20_000;

/**
 * Records the e2e servers really hold, generated here exactly as the reference generates its dataset, so a
 * journey can use addresses that resolve. `from` spreads journeys over different records (and the BFF's
 * cache): each call gets fresh ones.
 */
export async function referenceRecords(count: number, from: number) {
  const { generateProperties } = await import('../src/reference/dataset/generate.ts');
  const { readReferenceConfig } = await import('../src/reference/config.ts');
  const { seed } = readReferenceConfig({});
  const out: { address: string; street: string; city: string; state: string; zip: string }[] = [];
  let i = 0;
  for (const p of generateProperties({ count: E2E_RECORDS, seed })) {
    // Every 37th record from `from` on: different streets and towns, no run of one building's units.
    if (i++ < from || (i - from) % 37 !== 0) continue;
    const street = `${p.street_number} ${p.street_name}${p.unit ? ` Apt ${p.unit}` : ''}`;
    out.push({ address: p.address, street, city: p.city, state: p.state, zip: p.zip });
    if (out.length === count) break;
  }
  return out;
}

/**
 * The clock of the server a page talks to, where it is controllable (playwright.config: the paced and the
 * rate-limited servers run their embedded reference with REFERENCE_CLOCK=controllable on their own port plus 10,
 * and the BFF paces by the same clock). Moving it forward ends rate windows at once instead of waiting them out;
 * between moves it runs at the system's pace.
 */
function clockUrl(page: Page): string {
  const base = new URL(page.url().startsWith('http') ? page.url() : (test.info().project.use.baseURL ?? ''));
  return `http://127.0.0.1:${Number(base.port) + 10}/_test/clock`;
}

export async function moveClock(page: Page, ms: number) {
  const answer = await fetch(clockUrl(page), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advance_ms: ms }),
  });
  expect(answer.status, 'the reference clock moved').toBe(200);
}

/**
 * Sets the page's clock to its server's (which tests may have moved), before the page loads: countdowns the page
 * shows then agree with the server's resets. Move both with moveClocks.
 */
export async function installServerClock(page: Page) {
  const { now } = (await (await fetch(clockUrl(page))).json()) as { now: string };
  await page.clock.install({ time: new Date(now) });
}

/** Moves the server's clock and the page's (installServerClock) forward together, firing the page's timers. */
export async function moveClocks(page: Page, ms: number) {
  await moveClock(page, ms);
  await page.clock.fastForward(ms);
}

/**
 * Until `done` says so, moves the server's clock forward by `stepMs` every tenth of a second: about twenty times
 * the real pace, so a review runs through its rate windows in seconds. The rules still hold by that clock:
 * nothing is asked faster than its windows allow.
 */
export async function fastForwardUntil(
  page: Page,
  done: () => Promise<boolean>,
  { stepMs = 2_000, timeout = 60_000, message = 'fast-forwarded until done' } = {},
) {
  await expect
    .poll(
      async () => {
        if (await done()) return true;
        await moveClock(page, stepMs);
        return false;
      },
      { message, intervals: [100], timeout },
    )
    .toBe(true);
}

/**
 * Moves the server's clock `ms` forward in steps of 2 s, a tenth of a second apart, so that what waits for a
 * slot in those windows is asked as it would be over `ms` of real time, at about twenty times the pace.
 */
export async function fastForward(page: Page, ms: number, stepMs = 2_000) {
  for (let moved = 0; moved < ms; moved += stepMs) {
    await moveClock(page, Math.min(stepMs, ms - moved));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A review as the server tells it, read with the page's session (what every key of the account would see). */
export async function reviewOnServer(page: Page, url: string) {
  const id = new URL(url).pathname.split('/').pop() as string;
  const answer = await page.request.get(`/api/reviews/${encodeURIComponent(id)}`, {
    headers: { [CSRF_HEADER.name]: CSRF_HEADER.value },
  });
  expect(answer.status()).toBe(200);
  return ReviewSummary.parse(await answer.json());
}

/** How many rows of the review's current run have an answer, by the server's count. */
export async function answeredOnServer(page: Page, url: string) {
  const review = await reviewOnServer(page, url);
  return review.runs.at(-1)?.counts.done ?? 0;
}
