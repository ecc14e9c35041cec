import type { Confidence } from '../../../../../contract/index.ts';
import type { FreshnessTier } from '../../../property/index.ts';

/** The charts' colours: CSS variables set per theme in styles.css, so SVG fills follow the theme by themselves. */
export const CHART_COLORS: Record<Confidence | FreshnessTier | 'grid' | 'area', string> = {
  high: 'var(--chart-high)',
  medium: 'var(--chart-medium)',
  low: 'var(--chart-low)',
  fresh: 'var(--chart-fresh)',
  ageing: 'var(--chart-ageing)',
  stale: 'var(--chart-stale)',
  grid: 'var(--chart-grid)',
  area: 'var(--chart-area)',
};

/** How strongly an age tier's band is tinted behind the bars (lighter on white than on slate). */
export const BAND_OPACITY = 'var(--chart-band-opacity)' as unknown as number;
