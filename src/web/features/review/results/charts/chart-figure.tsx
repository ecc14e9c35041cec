import { type CSSProperties, type KeyboardEvent, type ReactNode, Suspense, useId, useRef } from 'react';
import { formatCount } from '../../../../lib/format.ts';
import type { ResultFilters } from '../stats-filters.ts';
import type { FrameHeights } from './bar-data.ts';

/*
 * Three charts of the review's records. Each is a <figure> whose caption says what it shows in a sentence,
 * and whose list of figures below the chart is both its text alternative and the keyboard way to filter
 * the table (the SVG, with recharts' accessibility layer, is focusable too: arrows move between bars and
 * Enter filters to the one shown). A click on a bar filters the table to it.
 */

export type FilterPatch = Partial<ResultFilters>;

export const TICK = { fill: 'currentColor', fontSize: 12 };

/**
 * A chart's frame at least as tall as `heights` at each width (bar-data.ts): the frame waiting for the chart and the
 * chart's own are the same height, so the table below stays where it is when the chart comes. It moves when the
 * chart is not the one the frame was sized for: figures on more lines than measured push it down; sources that came
 * after the frame was drawn change the source chart's bars (a tenth turns it to kinds, fewer bars: the table moves
 * up, once, as the last rows arrive). In print the charts take what they need.
 */
export function frameHeights(heights: FrameHeights): { className: string; style: CSSProperties } {
  return {
    className:
      'min-h-(--frame-narrow) sm:min-h-(--frame-sm) md:min-h-(--frame-md) lg:min-h-(--frame-lg) xl:min-h-(--frame-xl) print:min-h-0!',
    style: Object.fromEntries(
      Object.entries(heights).map(([width, px]) => [`--frame-${width}`, `${px}px`]),
    ) as CSSProperties,
  };
}

/**
 * One chart's frame: its caption, controls and list are drawn with the page; the chart itself (recharts, read
 * apart: lazy-bars.tsx) keeps its box of `height` px empty until its code is in, so nothing below it moves when it
 * comes (a 2-row review reopened: the results table moved down 832 px ~0.4 s after its first rows).
 */
export function ChartFigure({
  title,
  caption,
  empty,
  height,
  frame,
  chart,
  onActivate,
  figures,
  controls,
}: {
  title: string;
  caption: string;
  empty: boolean;
  /** The chart's own height (px), the same as the one it is drawn at. */
  height: number;
  /** The whole frame's least height at each width: its waiting frame's (frameHeights). */
  frame?: FrameHeights;
  controls?: ReactNode;
  chart: (track: (label: string | undefined) => void) => ReactNode;
  onActivate: (label: string) => void;
  figures: ReactNode;
}) {
  const titleId = useId();
  const active = useRef<string | undefined>(undefined);
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.key === 'Enter' || e.key === ' ') && active.current !== undefined) {
      e.preventDefault();
      onActivate(active.current);
    }
  };
  // An empty chart is a sentence, not a chart's room.
  const least = frame && !empty ? frameHeights(frame) : undefined;
  return (
    <figure
      aria-labelledby={titleId}
      className={`min-w-0 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900 print:break-inside-avoid ${least?.className ?? ''}`}
      style={least?.style}
    >
      <figcaption>
        <h3 id={titleId} className="text-base font-semibold">
          {title}
        </h3>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{caption}</p>
      </figcaption>
      {empty ? null : controls}
      {empty ? (
        <p className="mt-4 text-sm text-slate-600 dark:text-slate-300">
          No records yet: the chart fills in as addresses are matched.
        </p>
      ) : (
        <>
          {/* biome-ignore lint/a11y/noStaticElementInteractions: Enter on the chart's focused bar; the list below is the primary keyboard path */}
          <div
            className="mt-3 text-slate-700 dark:text-slate-200 print:overflow-hidden"
            onKeyDown={onKeyDown}
          >
            <Suspense fallback={<div style={{ height }} />}>
              {chart((label) => {
                active.current = label;
              })}
            </Suspense>
          </div>
          {figures}
        </>
      )}
    </figure>
  );
}

export function FilterButton({
  pressed,
  onClick,
  children,
  swatch,
  wide = false,
}: {
  pressed: boolean;
  onClick: () => void;
  children: ReactNode;
  swatch?: string;
  wide?: boolean;
}) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      className={`${wide ? 'flex w-full' : 'inline-flex'} min-h-9 items-center gap-2 rounded-md border px-2.5 py-1 text-left text-sm ${
        pressed
          ? 'border-teal-700 bg-teal-50 font-semibold text-teal-900 dark:border-teal-400 dark:bg-teal-950 dark:text-teal-100'
          : 'border-slate-300 bg-white text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800'
      }`}
    >
      {swatch ? (
        <span aria-hidden="true" className="size-3 shrink-0 rounded-sm" style={{ background: swatch }} />
      ) : null}
      {children}
    </button>
  );
}

export const plural = (n: number, one: string) => `${formatCount(n)} ${one}${n === 1 ? '' : 's'}`;
