import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Alert } from '../../../components/ui/alert.tsx';
import {
  type ColumnChoice,
  type CsvTable,
  columnNames,
  csvAddresses,
  detectHeader,
  guessColumns,
  parseCsv,
  readTextFile,
} from './csv.ts';
import { type Draft, describePrepared, hintClass, inputClass, labelClass } from './draft.ts';
import { InputError, prepareRows } from './rows.ts';

type Loaded = { fileName: string; table: CsvTable; hasHeader: boolean; choice: ColumnChoice };
type FileState =
  | { kind: 'idle' }
  | { kind: 'reading'; fileName: string; progress: number }
  | { kind: 'error'; message: string }
  | ({ kind: 'loaded' } & Loaded);

const PREVIEW_ROWS = 5;
const baseName = (fileName: string) => fileName.replace(/\.[^.]+$/, '') || fileName;

/** Reads a file and makes its table, as the sample review does too. */
export async function loadCsv(
  file: Blob & { name?: string },
  onProgress?: (f: number) => void,
  signal?: AbortSignal,
): Promise<Omit<Loaded, 'fileName'>> {
  const table = await parseCsv(await readTextFile(file), { onProgress, signal });
  const hasHeader = detectHeader(table.records);
  return { table, hasHeader, choice: guessColumns(table.records, hasHeader) };
}

function ColumnSelect({
  label,
  value,
  names,
  optional,
  onChange,
}: {
  label: string;
  value: number | null;
  names: string[];
  optional?: boolean;
  onChange: (v: number | null) => void;
}) {
  const id = useId();
  return (
    <div className="min-w-0 space-y-1">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <select
        id={id}
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
    </div>
  );
}

/**
 * A CSV or TSV file: read in chunks with papaparse, header detected, the address column (or the street /
 * city / state / ZIP columns) picked, and the first rows previewed as they will be looked up.
 */
export function CsvInput({ onDraft }: { onDraft: (d: Draft | null) => void }) {
  const id = useId();
  const [state, setState] = useState<FileState>({ kind: 'idle' });
  const reading = useRef<AbortController | null>(null);

  useEffect(() => () => reading.current?.abort(), []);

  const choose = async (file: File | undefined) => {
    reading.current?.abort();
    if (!file) {
      setState({ kind: 'idle' });
      return;
    }
    const controller = new AbortController();
    reading.current = controller;
    setState({ kind: 'reading', fileName: file.name, progress: 0 });
    try {
      const loaded = await loadCsv(
        file,
        (progress) => {
          if (!controller.signal.aborted) setState({ kind: 'reading', fileName: file.name, progress });
        },
        controller.signal,
      );
      if (!controller.signal.aborted) setState({ kind: 'loaded', fileName: file.name, ...loaded });
    } catch (err) {
      if (controller.signal.aborted) return;
      setState({
        kind: 'error',
        message:
          err instanceof InputError ? err.message : 'The file could not be read. Try choosing it again.',
      });
    }
  };

  const result = useMemo(() => {
    if (state.kind !== 'loaded') return null;
    try {
      const addresses = csvAddresses(state.table, state.hasHeader, state.choice);
      // Every row keeps its own cells, and the review the file's header, so the export joins back.
      const body = state.hasHeader ? state.table.records.slice(1) : state.table.records;
      // The file's own header, as the export gives it back (a headerless file gets column_1, column_2, ...).
      const header = state.hasHeader ? (state.table.records[0] ?? []) : [];
      const columns = Array.from({ length: state.table.columns }, (_, i) => header[i] ?? `column_${i + 1}`);
      return { addresses, prepared: { ...prepareRows(addresses, body), columns } };
    } catch (err) {
      if (err instanceof InputError) return { error: err.message };
      throw err;
    }
  }, [state]);

  useEffect(() => {
    if (state.kind === 'loaded' && result?.prepared && result.prepared.rows.length > 0) {
      const prepared = {
        ...result.prepared,
        skippedBlank: result.prepared.skippedBlank + state.table.blankLines,
      };
      onDraft({
        kind: 'rows',
        prepared,
        source: { kind: 'file', fileName: state.fileName },
        defaultName: baseName(state.fileName),
      });
    } else onDraft(null);
  }, [state, result, onDraft]);

  const update = (patch: Partial<Loaded>) => setState((s) => (s.kind === 'loaded' ? { ...s, ...patch } : s));

  return (
    <div className="space-y-4">
      <div className="space-y-1">
        <label htmlFor={`${id}-file`} className={labelClass}>
          CSV file
        </label>
        <p id={`${id}-hint`} className={hintClass}>
          CSV or TSV saved as UTF-8, up to 20 MB and 100,000 rows. A header row is recognised.
        </p>
        <input
          id={`${id}-file`}
          type="file"
          accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values,text/plain"
          aria-describedby={`${id}-hint`}
          onChange={(e) => void choose(e.target.files?.[0])}
          className="block w-full max-w-full text-sm file:mr-3 file:min-h-10 file:cursor-pointer file:rounded-md file:border file:border-slate-300 file:bg-white file:px-4 file:py-2 file:text-sm file:font-semibold file:text-slate-800 hover:file:bg-slate-100 dark:file:border-slate-600 dark:file:bg-slate-900 dark:file:text-slate-100"
        />
      </div>

      {state.kind === 'reading' ? (
        <div className="space-y-1">
          <p className="text-sm" id={`${id}-reading`}>
            Reading {state.fileName}…
          </p>
          <progress
            aria-labelledby={`${id}-reading`}
            max={1}
            value={state.progress}
            className="h-2 w-full overflow-hidden rounded-full"
          />
        </div>
      ) : null}

      {state.kind === 'error' ? (
        <Alert tone="error" title="This file cannot be used">
          <p>{state.message}</p>
        </Alert>
      ) : null}

      {state.kind === 'loaded' ? <LoadedFile state={state} result={result} onChange={update} /> : null}
    </div>
  );
}

function LoadedFile({
  state,
  result,
  onChange,
}: {
  state: Loaded;
  result: { addresses?: string[]; prepared?: ReturnType<typeof prepareRows>; error?: string } | null;
  onChange: (patch: Partial<Loaded>) => void;
}) {
  const id = useId();
  const names = columnNames(state.table, state.hasHeader);
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
        <fieldset className="space-y-2">
          <legend className={labelClass}>Where is the address?</legend>
          <div className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name={`${id}-kind`}
                className="size-4 accent-teal-700 dark:accent-teal-400"
                checked={choice.kind === 'single'}
                onChange={() =>
                  setChoice({ kind: 'single', column: choice.kind === 'parts' ? choice.street : 0 })
                }
              />
              In one column
            </label>
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name={`${id}-kind`}
                className="size-4 accent-teal-700 dark:accent-teal-400"
                checked={choice.kind === 'parts'}
                onChange={() =>
                  setChoice(
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
      ) : null}

      {choice.kind === 'single' ? (
        state.table.columns > 1 ? (
          <div className="max-w-sm">
            <ColumnSelect
              label="Address column"
              value={choice.column}
              names={names}
              onChange={(v) => setChoice({ kind: 'single', column: v ?? 0 })}
            />
          </div>
        ) : null
      ) : (
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <ColumnSelect
            label="Street column"
            value={choice.street}
            names={names}
            onChange={(v) => setChoice({ ...choice, street: v ?? 0 })}
          />
          <ColumnSelect
            label="City column"
            value={choice.city}
            names={names}
            optional
            onChange={(v) => setChoice({ ...choice, city: v })}
          />
          <ColumnSelect
            label="State column"
            value={choice.state}
            names={names}
            optional
            onChange={(v) => setChoice({ ...choice, state: v })}
          />
          <ColumnSelect
            label="ZIP column"
            value={choice.zip}
            names={names}
            optional
            onChange={(v) => setChoice({ ...choice, zip: v })}
          />
          <ColumnSelect
            label="Unit column"
            value={choice.unit ?? null}
            names={names}
            optional
            onChange={(v) => setChoice({ ...choice, unit: v })}
          />
          {choice.city === null && choice.state === null && choice.zip === null ? (
            <p
              role="alert"
              className="text-sm font-medium text-amber-900 sm:col-span-2 lg:col-span-4 dark:text-amber-200"
            >
              Only a street column is chosen: without a city, state or ZIP a street may match one of many
              towns, and each row still costs a lookup. Pick the city, state or ZIP columns if the file has
              them.
            </p>
          ) : null}
        </div>
      )}

      {result?.error ? (
        <Alert tone="error" title="These columns give no addresses">
          <p>{result.error}</p>
        </Alert>
      ) : null}

      {result?.addresses && result.prepared ? (
        <div className="space-y-2">
          <p className="text-sm text-slate-700 dark:text-slate-300">
            {describePrepared(result.prepared, state.table.blankLines)}
          </p>
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <caption className="mb-1 text-left text-xs font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">
                Preview: the first {Math.min(PREVIEW_ROWS, result.addresses.length)} rows as they will be
                looked up
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
                {result.addresses.slice(0, PREVIEW_ROWS).map((address, i) => (
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
      ) : null}
    </div>
  );
}
