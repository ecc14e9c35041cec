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

/**
 * A chart's least height as the page draws it (px), at each of Tailwind's widths: below 640 px, from 640 (`sm`), 768
 * (`md`), 1024 (`lg`, the two small charts side by side) and 1280 (`xl`). Each is the tallest the chart was across its
 * range, measured at the range's narrow end (where its words wrap most): 360, 640, 768, 1024 and 1280 px.
 */
export interface FrameHeights {
  narrow: number;
  sm: number;
  md: number;
  lg: number;
  xl: number;
}

/**
 * The confidence and age charts' frames (at 360 the age chart's figures took 694 px, 630 at 390; at 1024 both took
 * 602, 514 at 1280): the room their waiting frames keep (charts-section.tsx), and the least the drawn frames take,
 * so that the results table below does not move when the charts come. A chart shorter than its frame (a phone wider
 * than 360, say) leaves room at its foot. e2e/review-results.spec.ts holds the drawn frames to these figures.
 */
export const CONFIDENCE_FRAME: FrameHeights = { narrow: 450, sm: 342, md: 342, lg: 602, xl: 514 };
export const AGE_FRAME: FrameHeights = { narrow: 694, sm: 514, md: 450, lg: 602, xl: 514 };

/** A source's line in the list under its chart: 46 px, and the 8 px between lines. */
const SOURCE_LINE = 54;

/**
 * The source chart's frame with `bars` bars (measured with one to nine): each bar more is 34 px of chart and a line
 * of the list, which is one column below 640 px wide and two from 640 (a line for every second bar). Its caption
 * takes a second line from 640 to about 700 px.
 */
export function sourceFrame(bars: number): FrameHeights {
  const n = Math.max(1, bars);
  const more = (n - 1) * 34 + (Math.ceil(n / 2) - 1) * SOURCE_LINE;
  return {
    narrow: 374 + (n - 1) * (34 + SOURCE_LINE),
    sm: 310 + more,
    md: 290 + more,
    lg: 290 + more,
    xl: 290 + more,
  };
}
