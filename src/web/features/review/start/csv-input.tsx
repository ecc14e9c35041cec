import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Alert } from '../../../components/ui/alert.tsx';
import { hintClass, labelClass } from '../../../components/ui/field.ts';
import type { Draft } from './draft.ts';
import { type Loaded, loadFile, tableDraft } from './loaded.ts';
import { LoadedFile } from './loaded-file.tsx';
import { InputError } from './rows.ts';

type FileState =
  | { kind: 'idle' }
  | { kind: 'reading'; fileName: string; progress: number }
  | { kind: 'error'; message: string }
  /** `refused`: a file chosen after this one could not be read, and this one is still what is used. */
  | ({ kind: 'loaded'; refused?: string; file: File } & Loaded);

const baseName = (fileName: string) => fileName.replace(/\.[^.]+$/, '') || fileName;

/** The chosen file as it is read, and the rows its column choice gives, offered as a draft. */
function useCsvFile(onDraft: (d: Draft | null) => void) {
  const [state, setState] = useState<FileState>({ kind: 'idle' });
  const reading = useRef<AbortController | null>(null);
  // The file read before, kept while another is read: a file that cannot be read changes nothing.
  const current = useRef(state);
  current.current = state;

  useEffect(() => () => reading.current?.abort(), []);

  const choose = async (file: File | undefined, input?: HTMLInputElement) => {
    reading.current?.abort();
    const before = current.current.kind === 'loaded' ? current.current : null;
    if (!file) {
      setState({ kind: 'idle' });
      return;
    }
    const controller = new AbortController();
    reading.current = controller;
    setState({ kind: 'reading', fileName: file.name, progress: 0 });
    try {
      const loaded = await loadFile(
        file,
        (progress) => {
          if (!controller.signal.aborted) setState({ kind: 'reading', fileName: file.name, progress });
        },
        controller.signal,
      );
      if (!controller.signal.aborted) setState({ kind: 'loaded', fileName: file.name, file, ...loaded });
    } catch (err) {
      if (controller.signal.aborted) return;
      const message =
        err instanceof InputError ? err.message : 'The file could not be read. Try choosing it again.';
      if (before) {
        // The input shows no file rather than one whose rows are not those below.
        if (input) input.value = '';
        setState({ ...before, refused: message });
      } else setState({ kind: 'error', message });
    }
  };

  const result = useMemo(() => (state.kind === 'loaded' ? tableDraft(state) : null), [state]);

  useEffect(() => {
    if (state.kind === 'loaded' && result && 'prepared' in result && result.prepared.rows.length > 0) {
      onDraft({
        kind: 'csv',
        origin: state.fileName,
        prepared: result.prepared,
        defaultName: baseName(state.fileName),
        file: state.file,
      });
    } else onDraft(null);
  }, [state, result, onDraft]);

  const update = (patch: Partial<Loaded>) => setState((s) => (s.kind === 'loaded' ? { ...s, ...patch } : s));

  return { state, choose, result, update };
}

/**
 * A CSV or TSV file: read in chunks with papaparse, header detected, the address column (or the street /
 * city / state / ZIP columns) picked, and the first rows previewed as they will be looked up.
 */
export function CsvInput({ onDraft }: { onDraft: (d: Draft | null) => void }) {
  const id = useId();
  const { state, choose, result, update } = useCsvFile(onDraft);

  return (
    <div className="space-y-4">
      <div className="space-y-1">
        <label htmlFor={`${id}-file`} className={labelClass}>
          CSV file
        </label>
        <p id={`${id}-hint`} className={hintClass}>
          CSV, TSV or Excel (.xlsx), up to 20 MB and 100,000 rows. A header row is recognised.
        </p>
        <input
          id={`${id}-file`}
          type="file"
          accept=".csv,.tsv,.txt,.xlsx,.xlsm,text/csv,text/tab-separated-values,text/plain,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          aria-describedby={`${id}-hint`}
          onChange={(e) => void choose(e.target.files?.[0], e.target)}
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

      {state.kind === 'loaded' && state.refused ? (
        <Alert tone="error" title="This file cannot be used">
          <p>{state.refused}</p>
          <p>Nothing changed: the rows below, from “{state.fileName}”, are still what Start review sends.</p>
        </Alert>
      ) : null}

      {state.kind === 'loaded' ? <LoadedFile state={state} result={result} onChange={update} /> : null}
    </div>
  );
}
