import { useEffect, useState } from 'react';
import { flushSync } from 'react-dom';
import { describeMatch } from '../../../../contract/index.ts';
import { confidenceText } from '../../property/index.ts';
import { DECISION_TEXT } from './decisions.ts';
import {
  EXCLUDED_TEXT,
  isLook,
  LOOK_TEXT,
  MATCH_TEXT,
  outcomeText,
  type ResultRow,
  TIER_TEXT,
} from './stats.ts';

/**
 * Whether the page is being printed. The full table is rendered only then: every row on paper (the screen
 * table is virtualised and shows ~20), without holding 10,000 extra rows in the page the rest of the time.
 * beforeprint is handled synchronously (flushSync): the browser lays out the printed page right after it.
 */
export function usePrinting(): [boolean, () => void] {
  const [printing, setPrinting] = useState(false);
  useEffect(() => {
    const on = () => flushSync(() => setPrinting(true));
    const off = () => setPrinting(false);
    window.addEventListener('beforeprint', on);
    window.addEventListener('afterprint', off);
    const mq = typeof window.matchMedia === 'function' ? window.matchMedia('print') : null;
    const change = (e: MediaQueryListEvent) => (e.matches ? on() : off());
    mq?.addEventListener('change', change);
    return () => {
      window.removeEventListener('beforeprint', on);
      window.removeEventListener('afterprint', off);
      mq?.removeEventListener('change', change);
    };
  }, []);
  const print = () => {
    flushSync(() => setPrinting(true));
    window.print();
  };
  return [printing, print];
}

/** Tight cells: 25 rows or more fit a Letter or A4 page (e2e/review-results.spec.ts measures it). */
const CELL = 'border border-slate-400 px-1 py-px align-top text-left';

/** Every row the table shows (its filters and order), as plain text for paper or "Save as PDF". */
export function PrintTable({ rows, scope }: { rows: ResultRow[]; scope: string }) {
  return (
    <section aria-label="Printed results" className="hidden print:block">
      <p className="text-xs">{scope}</p>
      <table className="mt-2 w-full border-collapse text-[7.5pt] leading-[1.15]">
        <thead className="table-header-group">
          <tr>
            <th className={CELL}>#</th>
            <th className={CELL}>Input</th>
            <th className={CELL}>Matched address</th>
            <th className={CELL}>Property ID</th>
            <th className={CELL}>Outcome / decision</th>
            <th className={CELL}>Match</th>
            <th className={CELL}>Confidence</th>
            <th className={CELL}>Source</th>
            <th className={CELL}>Last verified</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((result) => {
            const { row, ageDays, tier, match, explanation } = result;
            const p = row.property;
            return (
              <tr key={row.index} className="break-inside-avoid">
                <td className={CELL}>{row.index + 1}</td>
                <td className={`${CELL} break-words`}>
                  {row.input}
                  {row.fix ? (
                    <span className="block text-[7pt]">
                      Fixed: looked up as {row.fix.address}, by key {row.fix.by}, {row.fix.at.slice(0, 10)}
                    </span>
                  ) : null}
                </td>
                <td className={`${CELL} break-words`}>{p?.address ?? '—'}</td>
                <td className={`${CELL} font-mono text-[7pt] whitespace-nowrap`}>{p?.id ?? '—'}</td>
                <td className={CELL}>
                  {isLook(result) ? <strong>{LOOK_TEXT}</strong> : outcomeText(row)}
                  {row.excluded ? <strong className="block">{EXCLUDED_TEXT}</strong> : null}
                  {/* The reviewer's decision under the outcome (its note, who and when are the export's: a row
                      stays within its lines, 25 or more to a page). */}
                  {row.decision ? (
                    <span className="block italic">{DECISION_TEXT[row.decision.decision]}</span>
                  ) : null}
                </td>
                <td className={`${CELL} break-words`}>
                  {match ? MATCH_TEXT[match] : '—'}
                  {explanation ? (
                    <span className="block text-[7pt]">{describeMatch(explanation)}</span>
                  ) : null}
                </td>
                <td className={CELL}>{p ? confidenceText(p.confidence) : '—'}</td>
                <td className={CELL}>{p ? p.source : '—'}</td>
                <td className={CELL}>
                  {p && ageDays !== null && tier
                    ? `${p.lastVerified} · ${TIER_TEXT[tier].toLowerCase()}`
                    : '—'}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
