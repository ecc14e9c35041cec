import { useId, useState } from 'react';
import { MAX_REVIEW_COLUMNS } from '../../../../contract/index.ts';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { formatCount } from '../../../lib/format.ts';
import { findHeader, HEADER_SEARCH } from './columns.ts';
import { guessed, keptColumns, type Loaded, withHeader } from './loaded.ts';
import { InputError } from './rows.ts';

/* How a file was read, said beside its columns: which sheet, which row is its header, its encoding, its width. */

/**
 * A workbook's sheet, when it has several: the first one Excel shows with an address header is read until
 * another is chosen.
 */
export function SheetSelect({
  book,
  onChange,
}: {
  book: NonNullable<Loaded['book']>;
  onChange: (patch: Partial<Loaded>) => void;
}) {
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="max-w-sm space-y-1">
      <label htmlFor={id} className={labelClass}>
        Sheet
      </label>
      <select
        id={id}
        value={book.index}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => {
          const index = Number(e.target.value);
          try {
            onChange({ ...guessed(book.table(index)), book: { ...book, index } });
            setError(null);
          } catch (err) {
            if (!(err instanceof InputError)) throw err;
            setError(err.message);
          }
        }}
        className={`${inputClass} min-h-10 text-sm`}
      >
        {book.names.map((name, i) => (
          <option key={name} value={i}>
            {book.hidden[i] ? `${name} (hidden in Excel)` : name}
          </option>
        ))}
      </select>
      {error ? (
        <p id={`${id}-error`} role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** How a text file was read, when it was not plain UTF-8: so the reviewer checks its accented letters. */
export function Encoding({ state }: { state: Loaded }) {
  const lines = state.otherLines ?? [];
  if (state.encoding !== 'windows-1252' && lines.length === 0) return null;
  return (
    <p className="text-sm text-slate-700 dark:text-slate-300">
      {state.encoding === 'windows-1252'
        ? 'Read as Windows-1252 (Excel’s CSV): the file is not UTF-8. Check that accented letters in the preview read right.'
        : `Read as UTF-8, except ${lines.length === 1 ? 'line' : 'lines'} ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ` and ${formatCount(lines.length - 5)} more` : ''}: not UTF-8, read as Windows-1252 (Excel’s CSV). Check the accented letters there.`}
    </p>
  );
}

/** A record as a header select shows it: its row and its first cells. */
const recordLabel = (cells: readonly string[], row: number | undefined) => {
  const text = cells
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .join(', ');
  return `Row ${row ?? '?'} · ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
};

/**
 * Whether the file has a header, and which row it is: found among the first rows (a title line may sit above
 * it), or said by the reviewer when it was found below the first row or names no address column. Rows above
 * the header are not rows of the review.
 */
export function HeaderRow({
  state,
  onChange,
}: {
  state: Loaded;
  onChange: (patch: Partial<Loaded>) => void;
}) {
  const id = useId();
  const { read, headerAt } = state;
  const firstRows = read.records.slice(0, HEADER_SEARCH);
  const above = headerAt ?? 0;
  return (
    <div className="space-y-2">
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          className="size-4 accent-teal-700 dark:accent-teal-400"
          checked={state.hasHeader}
          onChange={(e) =>
            onChange(withHeader(read, e.target.checked ? (findHeader(read.records) ?? 0) : null))
          }
        />
        {headerAt ? `Row ${read.rowNumbers[headerAt]} is the header` : 'The first row is a header'}
      </label>
      {state.hasHeader && firstRows.length > 1 && (above > 0 || state.unsure) ? (
        <div className="max-w-xl space-y-1">
          <label htmlFor={id} className={labelClass}>
            Header row
          </label>
          <select
            id={id}
            aria-describedby={above > 0 ? `${id}-above` : undefined}
            value={String(headerAt ?? 0)}
            onChange={(e) => onChange(withHeader(read, Number(e.target.value)))}
            className={`${inputClass} min-h-10 text-sm`}
          >
            {firstRows.map((cells, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the first records have only their position
              <option key={i} value={i}>
                {recordLabel(cells, read.rowNumbers[i])}
              </option>
            ))}
          </select>
          {above > 0 ? (
            <p id={`${id}-above`} className={hintClass}>
              {above === 1 ? 'Row' : 'Rows'}{' '}
              {read.rowNumbers
                .slice(0, above)
                .map((r) => String(r))
                .join(', ')}{' '}
              above the header {above === 1 ? 'is a title' : 'are a title'}, not addresses: not looked up.
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** A file wider than a review: said when it is read, with which columns the review keeps. */
export function WideFile({ state }: { state: Loaded }) {
  const width = state.table.columns;
  const kept = keptColumns(width, state.choice);
  if (!kept) return null;
  return (
    <p role="status" className="text-sm text-slate-700 dark:text-slate-300">
      The file has {formatCount(width)} columns; a review keeps {MAX_REVIEW_COLUMNS}: the address and parcel
      columns chosen and the first of the others. The other {formatCount(width - kept.length)} columns are
      left out of the review and its export; the addresses are read all the same.
    </p>
  );
}
