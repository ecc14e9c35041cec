import { useId } from 'react';
import { Alert } from '../../../components/ui/alert.tsx';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { formatCount } from '../../../lib/format.ts';
import { ChoiceCheck } from './choice-check.tsx';
import type { ColumnChoice, PartsChoice } from './columns.ts';
import { columnExamples, columnNames } from './csv.ts';
import { describePrepared } from './draft.ts';
import { Encoding, HeaderRow, SheetSelect, WideFile } from './file-reading.tsx';
import type { Loaded, TableDraft } from './loaded.ts';
import type { PreparedRows } from './rows.ts';

const PREVIEW_ROWS = 5;

/** A file's columns as the selects offer them: each one's name, and what its first filled cell holds. */
interface Columns {
  names: string[];
  examples: (string | null)[];
}

function ColumnSelect({
  label,
  hint,
  value,
  columns,
  optional,
  onChange,
}: {
  label: string;
  /** What the column is for, said with the select. */
  hint?: string;
  value: number | null;
  columns: Columns;
  optional?: boolean;
  onChange: (v: number | null) => void;
}) {
  const id = useId();
  const names = columns.names;
  const example = value === null ? null : columns.examples[value];
  return (
    <div className="min-w-0 space-y-1">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <select
        id={id}
        aria-describedby={
          [hint ? `${id}-hint` : '', example ? `${id}-example` : ''].filter(Boolean).join(' ') || undefined
        }
        value={value === null ? '' : String(value)}
        onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}
        className={`${inputClass} min-h-10 text-sm`}
      >
        {optional ? <option value="">None</option> : null}
        {names.map((name, i) => (
          <option key={name} value={i}>
            {name}
          </option>
        ))}
      </select>
      {hint ? (
        <p id={`${id}-hint`} className={hintClass}>
          {hint}
        </p>
      ) : null}
      {example ? (
        <p id={`${id}-example`} className={`${hintClass} truncate`} title={example}>
          e.g. “{example}”
        </p>
      ) : null}
    </div>
  );
}

/** A file (or pasted table) that has been read: its header, where its address is, and a preview of its rows. */
export function LoadedFile({
  state,
  result,
  onChange,
}: {
  state: Loaded;
  result: TableDraft | null;
  onChange: (patch: Partial<Loaded>) => void;
}) {
  const id = useId();
  const columns = {
    names: columnNames(state.table, state.hasHeader),
    examples: columnExamples(state.table, state.hasHeader),
  };
  const { choice } = state;
  // A column picked by the reviewer is no longer a guess.
  const setChoice = (next: ColumnChoice) => onChange({ choice: next, unsure: false });
  return (
    <div className="space-y-4 rounded-lg border border-slate-200 p-4 dark:border-slate-700">
      <Encoding state={state} />
      {state.book && state.book.names.length > 1 ? (
        <SheetSelect book={state.book} onChange={onChange} />
      ) : null}
      <HeaderRow state={state} onChange={onChange} />
      <WideFile state={state} />

      {state.table.columns > 1 ? (
        <AddressLayout name={`${id}-kind`} choice={choice} onChange={setChoice} />
      ) : null}

      {choice.kind === 'single' ? (
        state.table.columns > 1 ? (
          <div className="max-w-sm">
            <ColumnSelect
              label="Address column"
              value={choice.column}
              columns={columns}
              onChange={(v) => setChoice({ ...choice, kind: 'single', column: v ?? 0 })}
            />
          </div>
        ) : null
      ) : (
        <AddressPartColumns choice={choice} columns={columns} onChange={setChoice} />
      )}

      {state.table.columns > 1 ? (
        <div className="max-w-sm">
          <ColumnSelect
            label="Parcel number column"
            hint="Looked up when a row has no address (APN, parcel ID)."
            value={choice.parcel ?? null}
            columns={columns}
            optional
            onChange={(v) => setChoice({ ...choice, parcel: v })}
          />
        </div>
      ) : null}

      {result && 'error' in result ? (
        <Alert tone="error" title="These columns give no addresses">
          <p>{result.error}</p>
        </Alert>
      ) : null}

      {result && 'prepared' in result ? (
        <>
          <ChoiceCheck state={state} rows={result.rows} columns={columns.names} onChoose={setChoice} />
          <AddressPreview prepared={result.prepared} />
        </>
      ) : null}
    </div>
  );
}

/** Whether the address is in one column or split into street, city, state and ZIP columns. */
function AddressLayout({
  name,
  choice,
  onChange,
}: {
  name: string;
  choice: ColumnChoice;
  onChange: (next: ColumnChoice) => void;
}) {
  return (
    <fieldset className="space-y-2">
      <legend className={labelClass}>Where is the address?</legend>
      <div className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
        <label className="flex items-center gap-2">
          <input
            type="radio"
            name={name}
            className="size-4 accent-teal-700 dark:accent-teal-400"
            checked={choice.kind === 'single'}
            onChange={() =>
              onChange({
                kind: 'single',
                column: choice.kind === 'parts' ? choice.street : choice.column,
                parcel: choice.parcel ?? null,
              })
            }
          />
          In one column
        </label>
        <label className="flex items-center gap-2">
          <input
            type="radio"
            name={name}
            className="size-4 accent-teal-700 dark:accent-teal-400"
            checked={choice.kind === 'parts'}
            onChange={() =>
              onChange(
                choice.kind === 'parts'
                  ? choice
                  : {
                      kind: 'parts',
                      street: choice.column,
                      number: null,
                      parcel: choice.parcel ?? null,
                      city: null,
                      state: null,
                      zip: null,
                      unit: null,
                    },
              )
            }
          />
          Street, city, state and ZIP in their own columns
        </label>
      </div>
    </fieldset>
  );
}

/** The street, house number, city, state, ZIP and unit columns. */
function AddressPartColumns({
  choice,
  columns,
  onChange,
}: {
  choice: PartsChoice;
  columns: Columns;
  onChange: (next: ColumnChoice) => void;
}) {
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <ColumnSelect
        label="Street column"
        value={choice.street}
        columns={columns}
        onChange={(v) => onChange({ ...choice, street: v ?? 0 })}
      />
      <ColumnSelect
        label="House number column"
        hint="When the number is in its own column: joined before the street."
        value={choice.number ?? null}
        columns={columns}
        optional
        onChange={(v) => onChange({ ...choice, number: v })}
      />
      <ColumnSelect
        label="City column"
        value={choice.city}
        columns={columns}
        optional
        onChange={(v) => onChange({ ...choice, city: v })}
      />
      <ColumnSelect
        label="State column"
        value={choice.state}
        columns={columns}
        optional
        onChange={(v) => onChange({ ...choice, state: v })}
      />
      <ColumnSelect
        label="ZIP column"
        value={choice.zip}
        columns={columns}
        optional
        onChange={(v) => onChange({ ...choice, zip: v })}
      />
      <ColumnSelect
        label="Unit column"
        value={choice.unit ?? null}
        columns={columns}
        optional
        onChange={(v) => onChange({ ...choice, unit: v })}
      />
    </div>
  );
}

/**
 * What the rows come to, and the first of them as they will be looked up, by their row in the file; a row that
 * is refused is shown as refused, with why, and the refused rows are listed.
 */
function AddressPreview({ prepared }: { prepared: PreparedRows }) {
  const rows = prepared.rows;
  const refused = rows.filter((r) => r.outcome === 'failed' && r.error?.code === 'bad_request');
  return (
    <div className="space-y-2">
      <p className="text-sm text-slate-700 dark:text-slate-300">{describePrepared(prepared)}</p>
      {refused.length > 0 ? (
        <details className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-700">
          <summary className="cursor-pointer font-medium">
            Refused: {formatCount(refused.length)} {refused.length === 1 ? 'row is' : 'rows are'} not looked
            up
          </summary>
          <ul className="mt-2 space-y-1">
            {refused.slice(0, 200).map((r) => (
              <li key={r.index} className="break-words">
                <span className="tabular-nums text-slate-600 dark:text-slate-400">
                  Row {r.sourceRow ?? r.index + 1}:
                </span>{' '}
                “{r.input}” ({r.error?.message})
              </li>
            ))}
            {refused.length > 200 ? <li>… and {formatCount(refused.length - 200)} more</li> : null}
          </ul>
        </details>
      ) : null}
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm">
          <caption className="mb-1 text-left text-xs font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">
            Preview: the first {Math.min(PREVIEW_ROWS, rows.length)} rows as they will be looked up
          </caption>
          <thead>
            <tr className="border-b border-slate-200 dark:border-slate-700">
              <th scope="col" className="w-16 py-1 pr-3 font-semibold">
                Row
              </th>
              <th scope="col" className="py-1 font-semibold">
                Address to look up
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, PREVIEW_ROWS).map((row) => (
              <tr key={row.index} className="border-b border-slate-100 dark:border-slate-800">
                <td className="py-1 pr-3 tabular-nums text-slate-600 dark:text-slate-400">
                  {row.sourceRow ?? row.index + 1}
                </td>
                <td className="break-words py-1">
                  {row.error?.code === 'bad_request' ? (
                    <>
                      <em className="text-red-700 dark:text-red-300">refused, not looked up:</em>{' '}
                      {row.error.message}
                    </>
                  ) : row.input !== '' ? (
                    row.input
                  ) : row.parcel ? (
                    <>Parcel {row.parcel}</>
                  ) : (
                    <em className="text-slate-500">no address: kept, answered “no address”</em>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
