import type { SourceBar } from '../stats.ts';
import { plural } from './chart-figure.tsx';

/** A bar's records and their confidence mix, in words: "12 records: 5 high, 4 medium, 3 low". */
export function SourceBreakdown({ bar }: { bar: SourceBar }) {
  return (
    <>
      {plural(bar.total, 'record')}: {bar.high} high, {bar.medium} medium, {bar.low} low
    </>
  );
}
