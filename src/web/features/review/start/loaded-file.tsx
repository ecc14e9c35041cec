import { useId } from 'react';
import { Alert } from '../../../components/ui/alert.tsx';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { type ColumnChoice, columnExamples, columnNames, guessColumns } from './csv.ts';
import type { Loaded } from './csv-input.tsx';
import { describePrepared } from './draft.ts';
import type { prepareRows } from './rows.ts';

const PREVIEW_ROWS = 5;

type Prepared = ReturnType<typeof prepareRows>;

/** A file's columns as the selects offer them: each one's name, and what its first filled cell holds. */
interface Columns {
  names: string[];
  examples: (string | null)[];
}

function ColumnSelect({
  label,
  value,
  columns,
  optional,
  onChange,
}: {
  label: string;
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
        aria-describedby={example ? `${id}-example` : undefined}
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
      {example ? (
        <p id={`${id}-example`} className={`${hintClass} truncate`} title={example}>
          e.g. “{example}”
        </p>
      ) : null}
    </div>
  );
}

/** A file that has been read: its header, where its address is, and a preview of the rows it gives. */
export function LoadedFile({
  state,
  result,
  onChange,
}: {
  state: Loaded;
  result: { addresses?: string[]; prepared?: Prepared; error?: string } | null;
  onChange: (patch: Partial<Loaded>) => void;
}) {
  const id = useId();
  const columns = {
    names: columnNames(state.table, state.hasHeader),
    examples: columnExamples(state.table, state.hasHeader),
  };
  const { choice } = state;
  const setChoice = (next: ColumnChoice) => onChange({ choice: next });
  return (
    <div className="space-y-4 rounded-lg border border-slate-200 p-4 dark:border-slate-700">
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          className="size-4 accent-teal-700 dark:accent-teal-400"
          checked={state.hasHeader}
          onChange={(e) =>
            onChange({
              hasHeader: e.target.checked,
              choice: guessColumns(state.table.records, e.target.checked),
            })
          }
        />
        The first row is a header
      </label>

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
              onChange={(v) => setChoice({ kind: 'single', column: v ?? 0 })}
            />
          </div>
        ) : null
      ) : (
        <AddressPartColumns choice={choice} columns={columns} onChange={setChoice} />
      )}

      {result?.error ? (
        <Alert tone="error" title="These columns give no addresses">
          <p>{result.error}</p>
        </Alert>
      ) : null}

      {result?.addresses && result.prepared ? (
        <AddressPreview
          addresses={result.addresses}
          prepared={result.prepared}
          blankLines={state.table.blankLines}
        />
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
            onChange={() => onChange({ kind: 'single', column: choice.kind === 'parts' ? choice.street : 0 })}
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

/** The street, city, state, ZIP and unit columns, and a warning when only the street is chosen. */
function AddressPartColumns({
  choice,
  columns,
  onChange,
}: {
  choice: Extract<ColumnChoice, { kind: 'parts' }>;
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
      {choice.city === null && choice.state === null && choice.zip === null ? (
        <p
          role="alert"
          className="text-sm font-medium text-amber-900 sm:col-span-2 lg:col-span-4 dark:text-amber-200"
        >
          Only a street column is chosen: without a city, state or ZIP a street may match one of many towns,
          and each row still costs a lookup. Pick the city, state or ZIP columns if the file has them.
        </p>
      ) : null}
    </div>
  );
}

/** What the rows come to, and the first of them as they will be looked up. */
function AddressPreview({
  addresses,
  prepared,
  blankLines,
}: {
  addresses: string[];
  prepared: Prepared;
  blankLines: number;
}) {
  return (
    <div className="space-y-2">
      <p className="text-sm text-slate-700 dark:text-slate-300">{describePrepared(prepared, blankLines)}</p>
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm">
          <caption className="mb-1 text-left text-xs font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">
            Preview: the first {Math.min(PREVIEW_ROWS, addresses.length)} rows as they will be looked up
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
            {addresses.slice(0, PREVIEW_ROWS).map((address, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows of a preview have only their position
              <tr key={i} className="border-b border-slate-100 dark:border-slate-800">
                <td className="py-1 pr-3 tabular-nums text-slate-600 dark:text-slate-400">{i + 1}</td>
                <td className="break-words py-1">
                  {address === '' ? <em className="text-slate-500">blank: skipped</em> : address}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
