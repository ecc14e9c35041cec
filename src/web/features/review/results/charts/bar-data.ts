import type { Confidence } from '../../../../../contract/index.ts';
import type { AgeBin } from '../stats.ts';

/*
 * What the page gives each chart's drawing, and the drawing's height: shared by the frames drawn with the page
 * (age-chart.tsx, …) and the drawings read apart (bars.tsx), so that neither imports the other.
 */

export type ConfidenceDatum = { level: Confidence; label: string; count: number };

export type AgeDatum = AgeBin & { count: number };

/** Each drawing's height (px): the drawing's own and its box's until it is drawn. */
export const CONFIDENCE_CHART_HEIGHT = 200;
export const AGE_CHART_HEIGHT = 220;
/** A bar of 34 px per source (or kind), and the axis and legend. */
export const sourceChartHeight = (bars: number) => 56 + bars * 34;
