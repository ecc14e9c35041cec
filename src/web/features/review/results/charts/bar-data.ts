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

/** A chart's frame as the page draws it (px): below 640 px wide, from 640 (`sm`), from 1024 (`lg`). */
export interface FrameHeights {
  narrow: number;
  medium: number;
  wide: number;
}

/**
 * The confidence and age charts' frames, measured at 390, 800 and 1280 px wide (at 390 the confidence chart's three
 * figures take a line each once its counts have two digits, and one review's took 406 px where another's took 450):
 * the room their waiting frames keep (charts-section.tsx), and the least the drawn frames take, so that the results
 * table below does not move when the charts come. e2e/review-results.spec.ts holds the drawn frames to them.
 */
export const CONFIDENCE_FRAME: FrameHeights = { narrow: 450, medium: 342, wide: 514 };
export const AGE_FRAME: FrameHeights = { narrow: 630, medium: 450, wide: 514 };

/** A source's line in the list under its chart: 46 px, and the 8 px between lines. */
const SOURCE_LINE = 54;

/**
 * The source chart's frame with `bars` bars (measured with one to nine): each bar more is 34 px of chart and a line
 * of the list, which is one column below 640 px wide and two from 640 (a line for every second bar).
 */
export function sourceFrame(bars: number): FrameHeights {
  const n = Math.max(1, bars);
  const twoColumns = 290 + (n - 1) * 34 + (Math.ceil(n / 2) - 1) * SOURCE_LINE;
  return { narrow: 374 + (n - 1) * (34 + SOURCE_LINE), medium: twoColumns, wide: twoColumns };
}
