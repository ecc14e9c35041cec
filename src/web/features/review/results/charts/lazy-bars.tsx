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

/** Each drawing's height (px): the drawing's own and its box's until it is drawn. */
export const CONFIDENCE_CHART_HEIGHT = 200;
export const AGE_CHART_HEIGHT = 220;
/** A bar of 34 px per source (or kind), and the axis and legend. */
export const sourceChartHeight = (bars: number) => 56 + bars * 34;
