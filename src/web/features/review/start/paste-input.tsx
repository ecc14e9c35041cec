import { useCallback, useDeferredValue, useEffect, useId, useMemo, useState } from 'react';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { formatCount } from '../../../lib/format.ts';
import { parseTabbed } from './csv.ts';
import { type Draft, describePrepared } from './draft.ts';
import { guessed, type Loaded, type TableDraft, tableDraft } from './loaded.ts';
import { LoadedFile } from './loaded-file.tsx';
import { isTabbed, readPastedLines, type SetAside } from './paste.ts';
import { InputError, type PreparedRows, pastedLines, prepareRows } from './rows.ts';

/** What the text pasted comes to: addresses by line (prose set aside), rows of a spreadsheet, or why neither. */
type Pasted =
  | { kind: 'lines'; prepared: PreparedRows; setAside: SetAside[] }
  | { kind: 'table'; loaded: Loaded; result: TableDraft }
  | { kind: 'error'; error: string };

const PASTED_NAME = 'Pasted rows';

/**
 * The pasted text read: rows copied from a spreadsheet (tab-separated) as a table with the file's column
 * mapping, otherwise one address per line. `patch` is what the reviewer chose for this same table.
 */
function readPaste(text: string, patch: Partial<Loaded> | null): Pasted | null {
  if (text.trim() === '') return null;
  try {
    const lines = pastedLines(text);
    if (isTabbed(lines)) {
      const loaded: Loaded = { fileName: PASTED_NAME, ...guessed(parseTabbed(text)), ...patch };
      return { kind: 'table', loaded, result: tableDraft(loaded) };
    }
    const { rows, setAside } = readPastedLines(lines);
    return { kind: 'lines', prepared: prepareRows(rows), setAside };
  } catch (err) {
    if (err instanceof InputError) return { kind: 'error', error: err.message };
    throw err;
  }
}

/** Addresses pasted one per line, or rows copied from a spreadsheet. */
export function PasteInput({
  onDraft,
  defaultName,
}: {
  onDraft: (d: Draft | null) => void;
  defaultName: string;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const deferred = useDeferredValue(text);
  // The columns chosen for a pasted table, kept while the text stays the same.
  const [chosen, setChosen] = useState<{ text: string; patch: Partial<Loaded> } | null>(null);
  const patch = chosen?.text === deferred ? chosen.patch : null;
  const pasted = useMemo(() => readPaste(deferred, patch), [deferred, patch]);
  const onTableChange = useCallback(
    (next: Partial<Loaded>) =>
      setChosen((c) => ({ text: deferred, patch: { ...(c?.text === deferred ? c.patch : {}), ...next } })),
    [deferred],
  );

  useEffect(() => {
    const prepared =
      pasted?.kind === 'lines'
        ? pasted.prepared
        : pasted?.kind === 'table' && 'prepared' in pasted.result
          ? pasted.result.prepared
          : null;
    onDraft(prepared && prepared.rows.length > 0 ? { kind: 'paste', prepared, defaultName } : null);
  }, [pasted, onDraft, defaultName]);

  return (
    <div className="space-y-3">
      <div className="space-y-1">
        <label htmlFor={`${id}-text`} className={labelClass}>
          Addresses
        </label>
        <p id={`${id}-hint`} className={hintClass}>
          One address per line, up to 100,000, or rows copied from a spreadsheet. Blank lines are skipped; a
          repeated address is looked up once.
        </p>
        <textarea
          id={`${id}-text`}
          aria-describedby={`${id}-hint ${id}-summary`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={8}
          spellCheck={false}
          autoComplete="off"
          className={`${inputClass} min-h-40 py-2 font-mono text-sm`}
          placeholder={'1100 Congress Ave, Austin, TX 78701\n233 S Wacker Dr, Chicago IL'}
        />
        <p id={`${id}-summary`} className="text-sm text-slate-700 dark:text-slate-300" aria-live="polite">
          {pasted?.kind === 'error' ? (
            <span className="font-medium text-red-700 dark:text-red-300">{pasted.error}</span>
          ) : pasted?.kind === 'lines' ? (
            describePasted(pasted.prepared, pasted.setAside)
          ) : pasted?.kind === 'table' ? (
            'Read as rows of a spreadsheet (the lines hold tabs): choose the columns below.'
          ) : null}
        </p>
      </div>
      {pasted?.kind === 'lines' && pasted.setAside.length > 0 ? (
        <SetAsideList lines={pasted.setAside} />
      ) : null}
      {pasted?.kind === 'table' ? (
        <LoadedFile state={pasted.loaded} result={pasted.result} onChange={onTableChange} />
      ) : null}
    </div>
  );
}

const describePasted = (prepared: PreparedRows, setAside: readonly SetAside[]) =>
  [
    describePrepared(prepared),
    ...(setAside.length > 0
      ? [
          `${formatCount(setAside.length)} ${setAside.length === 1 ? 'line' : 'lines'} set aside: not an address`,
        ]
      : []),
  ].join(' · ');

/** The pasted lines that are not looked up, by line number, with why: open to check none is an address. */
function SetAsideList({ lines }: { lines: readonly SetAside[] }) {
  return (
    <details className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-700">
      <summary className="cursor-pointer font-medium">
        Not an address: {formatCount(lines.length)} {lines.length === 1 ? 'line' : 'lines'} set aside, not
        looked up
      </summary>
      <ul className="mt-2 space-y-1">
        {lines.slice(0, 200).map((l) => (
          <li key={l.line} className="break-words">
            <span className="tabular-nums text-slate-600 dark:text-slate-400">Line {l.line}:</span> “{l.text}”
            <span className="text-slate-600 dark:text-slate-400"> ({l.why})</span>
          </li>
        ))}
        {lines.length > 200 ? <li>… and {formatCount(lines.length - 200)} more</li> : null}
      </ul>
    </details>
  );
}
