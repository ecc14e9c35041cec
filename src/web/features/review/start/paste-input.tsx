import { useDeferredValue, useEffect, useId, useMemo, useState } from 'react';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { type Draft, describePrepared } from './draft.ts';
import { InputError, pastedLines, prepareRows } from './rows.ts';

/** Addresses pasted one per line. */
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
  const result = useMemo(() => {
    if (deferred.trim() === '') return null;
    try {
      return { prepared: prepareRows(pastedLines(deferred)) };
    } catch (err) {
      if (err instanceof InputError) return { error: err.message };
      throw err;
    }
  }, [deferred]);

  useEffect(() => {
    onDraft(
      result?.prepared && result.prepared.rows.length > 0
        ? { kind: 'paste', prepared: result.prepared, defaultName }
        : null,
    );
  }, [result, onDraft, defaultName]);

  return (
    <div className="space-y-1">
      <label htmlFor={`${id}-text`} className={labelClass}>
        Addresses
      </label>
      <p id={`${id}-hint`} className={hintClass}>
        One address per line, up to 100,000. Blank lines are skipped; a repeated address is looked up once.
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
        {result?.error ? (
          <span className="font-medium text-red-700 dark:text-red-300">{result.error}</span>
        ) : result?.prepared ? (
          describePrepared(result.prepared)
        ) : null}
      </p>
    </div>
  );
}
