import { lazy } from 'react';

/*
 * The charts' drawings as the page reads them: their code (recharts, most of the charts' bytes) comes once the
 * first rows are drawn, so it never competes with them; until it is in, each chart's box keeps its height.
 */

/** Read as soon as the first rows are drawn (review-results.tsx); the drawings wait for it. */
export const loadBars = () => import('./bars.tsx');

export const ConfidenceBars = lazy(() => loadBars().then((m) => ({ default: m.ConfidenceBars })));
export const AgeBars = lazy(() => loadBars().then((m) => ({ default: m.AgeBars })));
export const SourceBars = lazy(() => loadBars().then((m) => ({ default: m.SourceBars })));
