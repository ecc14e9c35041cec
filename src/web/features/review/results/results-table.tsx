import {
  createRow,
  flexRender,
  getCoreRowModel,
  type Header,
  type Row,
  type SortingState,
  sortingFns,
  type Table,
  useReactTable,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, type ReactNode, useMemo, useRef, useState } from 'react';
import { useNarrow } from '../../../hooks/use-media-query.ts';
import { useScrollsSideways } from '../../../hooks/use-scrolls-sideways.ts';
import { COLUMNS, meta, type ResultsMeta } from './columns.tsx';
import type { ResultRow } from './stats.ts';

/** Rows are one line high, so the virtualiser needs no measuring and scrolling 10,000 rows stays smooth. */
/** Two lines of text-sm and the cell's padding: long inputs, addresses and sources wrap once, then clip. */
export const ROW_HEIGHT = 52;

/**
 * On a phone the screen's width goes to the address as given (a tap opens the whole record) and its outcome,
 * then confidence and age a short scroll away; the matched address, match and source wait in the row's dialog.
 */
const NARROW = {
  columnOrder: ['select', 'input', 'outcome', 'confidence', 'verified'],
  columnVisibility: { address: false, match: false, source: false },
};

const NO_DATA: ResultRow[] = [];

/**
 * The rows in the table's order: sorted by its sorting state with each column's own value and options (an
 * undefined value last either way; ties in input order), as the table's own sorted model would.
 */
function sortResults(rows: ResultRow[], sorting: SortingState, table: Table<ResultRow>): ResultRow[] {
  if (sorting.length === 0) return rows;
  const keys = sorting.flatMap(({ id, desc }) => {
    const column = table.getColumn(id);
    const value = column?.accessorFn;
    return column && value
      ? [{ id, desc, value, undefinedLast: column.columnDef.sortUndefined === 'last' }]
      : [];
  });
  const decorated = rows.map((r, i) => ({ r, values: keys.map((k) => k.value(r, i)) }));
  const wrap = (v: unknown) => ({ getValue: () => v }) as unknown as Row<ResultRow>;
  decorated.sort((a, b) => {
    for (const [i, k] of keys.entries()) {
      const x = a.values[i];
      const y = b.values[i];
      if (x === undefined || y === undefined) {
        if (x === y) continue;
        if (k.undefinedLast) return x === undefined ? 1 : -1;
      }
      const order =
        typeof x === 'string' || typeof y === 'string'
          ? sortingFns.alphanumeric(wrap(x), wrap(y), k.id)
          : sortingFns.basic(wrap(x), wrap(y), k.id);
      if (order !== 0) return k.desc ? -order : order;
    }
    return 0;
  });
  return decorated.map((d) => d.r);
}

/**
 * The table's state (sorting, columns), held by the results view so the print layout shows the rows in the same
 * order, and the rows in that order. The table itself holds no rows: the table library's row objects (dozens
 * of functions each) cost a 100,000-row review hundreds of MB, so only the rows drawn get one (`useRowOf`).
 */
export function useResultsTable({
  rows,
  selected,
  onToggle,
  onOpen,
}: {
  rows: ResultRow[];
  selected: ReadonlySet<number>;
  onToggle: (index: number) => void;
  onOpen: (r: ResultRow) => void;
}): { table: Table<ResultRow>; rows: ResultRow[] } {
  const [sorting, setSorting] = useState<SortingState>([]);
  const narrow = useNarrow();
  const table = useReactTable({
    data: NO_DATA,
    columns: COLUMNS,
    meta: { selected, onToggle, onOpen } satisfies ResultsMeta,
    state: narrow ? { sorting, ...NARROW } : { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    getRowId: (r) => String(r.row.index),
  });
  const sorted = useMemo(() => sortResults(rows, sorting, table), [rows, sorting, table]);
  return { table, rows: sorted };
}

/** The table row of a result, made once per result (a row redraws only when its result changes). */
function useRowOf(table: Table<ResultRow>) {
  const made = useRef(new WeakMap<ResultRow, Row<ResultRow>>());
  return (r: ResultRow, index: number) => {
    let row = made.current.get(r);
    if (!row || row.index !== index) {
      row = createRow(table, String(r.row.index), r, index, 0);
      made.current.set(r, row);
    }
    return row;
  };
}

const WIDTHS: Record<string, string> = {
  select: 'w-11',
  input: 'w-48 sm:w-[22%]',
  address: 'w-[25%]',
  outcome: 'w-28 sm:w-40',
  match: 'w-28',
  confidence: 'w-24 sm:w-28',
  source: 'w-[15%]',
  verified: 'w-36 sm:w-48',
};

function SortIcon({ dir }: { dir: false | 'asc' | 'desc' }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 12 16" className="size-3 shrink-0">
      <path d="M6 2l4 5H2z" fill="currentColor" opacity={dir === 'asc' ? 1 : 0.3} />
      <path d="M6 14l4-5H2z" fill="currentColor" opacity={dir === 'desc' ? 1 : 0.3} />
    </svg>
  );
}

/**
 * One row, re-rendered only when its own data or its checkbox's state changes: scrolling mounts the rows
 * coming into view and leaves the others alone.
 */
const ResultRowView = memo(function ResultRowView({
  row,
  rowIndex,
  onOpen,
}: {
  row: Row<ResultRow>;
  rowIndex: number;
  /** Only to re-render when the checkbox's state changes; the cell reads it from the table's meta. */
  checked: boolean;
  onOpen: (r: ResultRow) => void;
}) {
  return (
    <tr
      aria-rowindex={rowIndex + 2}
      onClick={() => onOpen(row.original)}
      style={{ height: ROW_HEIGHT }}
      className="cursor-pointer border-b border-slate-100 hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-800/60"
    >
      {row.getVisibleCells().map((cell) => (
        <td key={cell.id} className="overflow-hidden px-3 align-middle whitespace-nowrap">
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  );
});

/** A sortable column's aria-sort: "ascending", "descending" or "none"; nothing for the others. */
function ariaSort(canSort: boolean, dir: false | 'asc' | 'desc') {
  if (!canSort) return undefined;
  return dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none';
}

/** A column's header: a real <th>; a sortable one holds a button that sorts by it, and states aria-sort. */
function HeaderCell({ header: h }: { header: Header<ResultRow, unknown> }) {
  const dir = h.column.getIsSorted();
  const canSort = h.column.getCanSort();
  return (
    <th
      scope="col"
      aria-sort={ariaSort(canSort, dir)}
      className="h-11 border-b border-slate-200 px-3 text-left font-semibold dark:border-slate-700"
    >
      {canSort ? (
        <button
          type="button"
          onClick={h.column.getToggleSortingHandler()}
          className="-mx-1 inline-flex items-center gap-1.5 rounded px-1 py-0.5 text-left hover:bg-slate-200 dark:hover:bg-slate-700"
        >
          {flexRender(h.column.columnDef.header, h.getContext())}
          <SortIcon dir={dir} />
        </button>
      ) : (
        flexRender(h.column.columnDef.header, h.getContext())
      )}
    </th>
  );
}

/** The sticky header row: the first row of the table for aria-rowindex. */
function ResultsTableHead({ table }: { table: Table<ResultRow> }) {
  return (
    <thead className="sticky top-0 z-10 bg-slate-100 dark:bg-slate-800">
      {table.getHeaderGroups().map((hg) => (
        <tr key={hg.id} aria-rowindex={1}>
          {hg.headers.map((h) => (
            <HeaderCell key={h.id} header={h} />
          ))}
        </tr>
      ))}
    </thead>
  );
}

/** An empty row holding the height of the rows out of view above or below, so the scrollbar tells the truth. */
function SpacerRow({ colCount, height }: { colCount: number; height: number }) {
  return (
    // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a spacer row holds no content and no focusable element
    <tr aria-hidden="true">
      <td colSpan={colCount} style={{ height, padding: 0 }} />
    </tr>
  );
}

/**
 * The results as a real <table> (headers are real <th>, sortable ones hold a button and state aria-sort),
 * virtualised with spacer rows above and below the rows in view, so table semantics and column alignment
 * survive; aria-rowcount and aria-rowindex tell assistive technology where a row sits in the whole list.
 */
export function ResultsTable({
  table,
  rows,
  labelledBy,
  onOpen,
  footer,
}: {
  table: Table<ResultRow>;
  /** In the table's order (useResultsTable). */
  rows: ResultRow[];
  labelledBy: string;
  onOpen: (r: ResultRow) => void;
  footer?: ReactNode;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const rowOf = useRowOf(table);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = items.length > 0 ? virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0) : 0;
  const sideways = useScrollsSideways(scrollRef);
  const colCount = table.getVisibleLeafColumns().length;
  const { selected } = meta(table);

  return (
    <>
      <div
        ref={scrollRef}
        className="max-h-[70vh] xl:max-h-[calc(100vh-6rem)] overflow-auto rounded-xl contain-content border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900 print:hidden"
      >
        <table
          aria-labelledby={labelledBy}
          aria-rowcount={rows.length + 1}
          className="w-full min-w-[30rem] table-fixed border-collapse text-sm sm:min-w-[63rem]"
        >
          <colgroup>
            {table.getVisibleLeafColumns().map((c) => (
              <col key={c.id} className={WIDTHS[c.id]} />
            ))}
          </colgroup>
          <ResultsTableHead table={table} />
          <tbody>
            {padTop > 0 ? <SpacerRow colCount={colCount} height={padTop} /> : null}
            {items.map((item) => {
              const result = rows[item.index];
              if (!result) return null;
              const row = rowOf(result, item.index);
              const checked = selected.has(result.row.index);
              return (
                <ResultRowView
                  key={row.id}
                  row={row}
                  rowIndex={item.index}
                  checked={checked}
                  onOpen={onOpen}
                />
              );
            })}
            {padBottom > 0 ? <SpacerRow colCount={colCount} height={padBottom} /> : null}
            {rows.length === 0 ? (
              <tr>
                <td colSpan={colCount} className="px-3 py-6 text-center text-slate-600 dark:text-slate-300">
                  {footer ?? 'No rows match these filters.'}
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      {/* Under the table, so that nothing above it moves when it is found to be wider than its frame. */}
      {sideways ? (
        <p className="text-xs text-slate-600 dark:text-slate-400 print:hidden">
          More columns to the right: scroll the table sideways.
        </p>
      ) : null}
    </>
  );
}
