import type { ColumnDef, Table } from '@tanstack/react-table';
import { describeMatch, type ReviewRowOutcome } from '../../../../contract/index.ts';
import { StrokePath } from '../../../components/ui/stroke-path.tsx';
import {
  agencyOf,
  CONFIDENCE_RANK,
  CONFIDENCE_WORD,
  relativeAge,
  sourceKindText,
} from '../../property/index.ts';
import { DECISION_TEXT } from './decisions.ts';
import {
  EXCLUDED_TEXT,
  isLook,
  LOOK_TEXT,
  MATCH_TEXT,
  MATCHES,
  OUTCOMES,
  outcomeText,
  type ResultRow,
  TIER_TEXT,
} from './stats.ts';

/* The results table's columns: what each shows, how it sorts, and its cell. */

const OUTCOME_ORDER: Record<ReviewRowOutcome, number> = Object.fromEntries(
  OUTCOMES.map((o, i) => [o, i]),
) as Record<ReviewRowOutcome, number>;

const MATCH_ORDER = Object.fromEntries(MATCHES.map((m, i) => [m, i])) as Record<string, number>;

const OUTCOME_ICON: Record<ReviewRowOutcome, string> = {
  matched: 'M5 10.5l3 3 7-7',
  not_found: 'M6.5 6.5l7 7M13.5 6.5l-7 7',
  ambiguous: 'M7.5 7.5a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .8-1 1.5V12M10 14.5v.5',
  failed: 'M10 5v6M10 14.5v.5',
  pending: 'M10 5.5V10l3 2',
  not_asked: 'M6 10h8',
};

function OutcomeCell({ r }: { r: ResultRow }) {
  const { outcome } = r.row;
  // A match that may be another property is not "Matched" here either (the summary counts it apart).
  const look = isLook(r);
  return (
    <span
      className={`flex min-w-0 flex-wrap items-center gap-x-1.5 gap-y-0.5 ${look ? 'font-medium text-amber-800 dark:text-amber-300' : ''}`}
      data-outcome={look ? 'needs_look' : outcome}
    >
      <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4 shrink-0">
        <circle cx="10" cy="10" r="8.5" fill="none" stroke="currentColor" strokeWidth="1.4" />
        <StrokePath d={OUTCOME_ICON[look ? 'ambiguous' : outcome]} />
      </svg>
      {look ? LOOK_TEXT : outcomeText(r.row)}
      {r.row.excluded ? (
        <span className="rounded border border-slate-400 px-1 text-xs font-medium text-slate-700 dark:border-slate-500 dark:text-slate-300">
          {EXCLUDED_TEXT}
        </span>
      ) : null}
      {r.row.decision ? (
        <span
          data-decision={r.row.decision.decision}
          className="rounded bg-slate-200 px-1 text-xs font-medium text-slate-800 dark:bg-slate-700 dark:text-slate-100"
        >
          {DECISION_TEXT[r.row.decision.decision]}
        </span>
      ) : null}
      {outcome === 'failed' && r.row.error && !r.row.excluded && !r.row.decision ? (
        // Why, at a glance (a row the file check refused was never sent), where it keeps the row two lines high
        // (ROW_HEIGHT): beside a badge it would take a third; the row's details say it whole.
        <span
          className="min-w-0 basis-full truncate text-xs text-slate-600 dark:text-slate-400"
          title={r.row.error.message}
        >
          {r.row.error.message}
        </span>
      ) : null}
    </span>
  );
}

const DOT = {
  high: 'bg-emerald-600 dark:bg-emerald-400',
  medium: 'bg-amber-500 dark:bg-amber-400',
  low: 'bg-red-600 dark:bg-red-400',
} as const;

const none = <span className="text-slate-400 dark:text-slate-500">—</span>;

/** What the cells need from the view; through the table's meta, so the columns never change identity. */
export interface ResultsMeta {
  selected: ReadonlySet<number>;
  onToggle: (index: number) => void;
  onOpen: (r: ResultRow) => void;
}

export const meta = (table: Table<ResultRow>) => table.options.meta as ResultsMeta;

// Stable column definitions: a new set on every selection change would remount every visible cell and take
// keyboard focus away from the checkbox just ticked.
export const COLUMNS: ColumnDef<ResultRow, unknown>[] = [
  {
    id: 'select',
    header: () => <span className="sr-only">Select</span>,
    enableSorting: false,
    // Every row: a decision goes to any number of them; Compare takes 2 to 4 with a record.
    cell: ({ row: { original: r }, table }) => {
      const { selected, onToggle } = meta(table);
      return (
        <input
          type="checkbox"
          className="size-4 accent-teal-700"
          aria-label={`Select ${r.row.input}`}
          checked={selected.has(r.row.index)}
          onClick={(e) => e.stopPropagation()}
          onChange={() => onToggle(r.row.index)}
        />
      );
    },
  },
  {
    id: 'input',
    header: 'Input',
    accessorFn: (r) => r.row.input.toLocaleLowerCase(),
    // Text sorts A to Z first (the table holds no rows to tell it the column is text).
    sortDescFirst: false,
    cell: ({ row: { original: r }, table }) => (
      <>
        <button
          type="button"
          aria-haspopup="dialog"
          title={r.row.input}
          onClick={(e) => {
            e.stopPropagation();
            meta(table).onOpen(r);
          }}
          className="line-clamp-2 max-w-full text-left font-medium break-words whitespace-normal text-teal-800 underline-offset-2 hover:underline dark:text-teal-300"
        >
          {r.row.input}
        </button>
        {r.row.fix ? (
          <span
            className="mt-0.5 block truncate text-xs text-slate-600 dark:text-slate-400"
            title={r.row.fix.address}
          >
            Fixed: looked up as {r.row.fix.address}
          </span>
        ) : null}
      </>
    ),
  },
  {
    id: 'address',
    header: 'Matched address',
    accessorFn: (r) => r.row.property?.address.toLocaleLowerCase(),
    // Text sorts A to Z first (the table holds no rows to tell it the column is text).
    sortDescFirst: false,
    sortUndefined: 'last',
    cell: ({ row: { original: r } }) =>
      r.row.property ? (
        <span className="line-clamp-2 break-words whitespace-normal" title={r.row.property.address}>
          {r.row.property.address}
        </span>
      ) : (
        none
      ),
  },
  {
    id: 'outcome',
    header: 'Outcome',
    accessorFn: (r) => OUTCOME_ORDER[r.row.outcome],
    sortDescFirst: false,
    cell: ({ row: { original: r } }) => <OutcomeCell r={r} />,
  },
  {
    id: 'match',
    header: 'Match',
    accessorFn: (r) => (r.match ? MATCH_ORDER[r.match] : undefined),
    sortUndefined: 'last',
    sortDescFirst: false,
    cell: ({ row: { original: r } }) =>
      r.match ? (
        <span
          className={`block truncate ${r.match === 'corrected' ? 'font-medium text-amber-800 dark:text-amber-300' : ''}`}
          data-match={r.match}
          title={r.explanation ? describeMatch(r.explanation) : 'The record has the address as given'}
        >
          {MATCH_TEXT[r.match]}
        </span>
      ) : (
        none
      ),
  },
  {
    id: 'confidence',
    header: 'Confidence',
    accessorFn: (r) => (r.row.property ? CONFIDENCE_RANK[r.row.property.confidence] : undefined),
    sortUndefined: 'last',
    sortDescFirst: true,
    cell: ({ row: { original: r } }) =>
      r.row.property ? (
        <span className="inline-flex items-center gap-1.5" data-confidence={r.row.property.confidence}>
          <span aria-hidden="true" className={`size-2.5 rounded-full ${DOT[r.row.property.confidence]}`} />
          {CONFIDENCE_WORD[r.row.property.confidence]}
        </span>
      ) : (
        none
      ),
  },
  {
    id: 'source',
    header: 'Source',
    accessorFn: (r) => (r.row.property ? agencyOf(r.row.property).toLocaleLowerCase() : undefined),
    // Text sorts A to Z first (the table holds no rows to tell it the column is text).
    sortDescFirst: false,
    sortUndefined: 'last',
    cell: ({ row: { original: r } }) => {
      const p = r.row.property;
      if (!p) return none;
      const kind = sourceKindText(p.sourceKind);
      return (
        <span
          className="line-clamp-2 break-words whitespace-normal"
          title={kind ? `${agencyOf(p)}: ${kind}` : agencyOf(p)}
        >
          {agencyOf(p)}
        </span>
      );
    },
  },
  {
    id: 'verified',
    header: 'Verified',
    accessorFn: (r) => r.ageDays ?? undefined,
    sortUndefined: 'last',
    sortDescFirst: false,
    cell: ({ row: { original: r } }) =>
      r.ageDays !== null && r.tier ? (
        <span className="block truncate" title={r.row.property?.lastVerified} data-tier={r.tier}>
          {relativeAge(r.ageDays)}{' '}
          <span className="text-slate-600 dark:text-slate-300">· {TIER_TEXT[r.tier].toLowerCase()}</span>
        </span>
      ) : (
        none
      ),
  },
];
