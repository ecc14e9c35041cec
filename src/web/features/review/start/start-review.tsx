import { useCallback, useId, useState } from 'react';
import type { ReviewKind, ReviewSummary } from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { formatCount, formatDateTime } from '../../../lib/format.ts';
import { createReview, putChunk, putSource } from '../api/server-reviews.ts';
import { AreaInput } from './area-input.tsx';
import { CsvInput } from './csv-input.tsx';
import type { Draft } from './draft.ts';
import { PasteInput } from './paste-input.tsx';
import { ReviewCost } from './review-cost.tsx';
import { toUpload, uploadReview } from './upload.ts';

/** The input panels, by the kind of review each starts. */
type Mode = Exclude<ReviewKind, 'sample'>;
const MODES: { mode: Mode; label: string; missing: string }[] = [
  { mode: 'paste', label: 'Paste', missing: 'Paste at least one address, one per line.' },
  { mode: 'csv', label: 'Upload a file', missing: 'Choose a CSV file with addresses first.' },
  { mode: 'area', label: 'An area', missing: 'Find the records of an area first.' },
];

export const dateName = (at = new Date()) => `Review of ${formatDateTime(at)}`;

/** The send: rows up in chunks with their progress, then the review opened; or why it could not start. */
function useStartSubmit({
  mode,
  draft,
  name,
  onStarted,
}: {
  mode: Mode;
  draft: Draft | null;
  /** The review's name: what was typed, or the default. */
  name: string;
  onStarted: (review: ReviewSummary) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [uploaded, setUploaded] = useState<{ sent: number; total: number } | null>(null);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!draft) {
      setError(MODES.find((m) => m.mode === mode)?.missing ?? null);
      return;
    }
    setError(null);
    setSaving(true);
    try {
      const review = await uploadReview(toUpload(draft, name), {
        create: createReview,
        put: putChunk,
        putSource,
        onProgress: (sent, total) => setUploaded({ sent, total }),
      });
      onStarted(review);
    } catch (err) {
      // An ended session sends the person to sign in (query-client.ts); what was chosen is lost with the page.
      if (err instanceof ApiRequestError && err.code === 'unauthenticated') return;
      // What was pasted or chosen stays: starting again sends it all again, as a new review.
      setError(
        err instanceof ApiRequestError && err.code !== 'bad_response'
          ? `The rows could not all be sent: ${err.message}`
          : 'The rows could not all be sent. Check your connection and start the review again.',
      );
      setSaving(false);
      setUploaded(null);
    }
  };

  return { error, setError, saving, uploaded, submit };
}

/** Where the addresses come from: pasted, a file, or an area. */
function SourcePicker({ name, mode, onMode }: { name: string; mode: Mode; onMode: (mode: Mode) => void }) {
  return (
    <fieldset>
      <legend className="mb-2 text-sm font-semibold">Addresses from</legend>
      <div className="inline-flex max-w-full flex-wrap gap-1 rounded-lg border border-slate-300 bg-slate-100 p-1 dark:border-slate-700 dark:bg-slate-800">
        {MODES.map((m) => (
          <label
            key={m.mode}
            className="cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 has-[:checked]:bg-white has-[:checked]:text-teal-900 has-[:checked]:shadow-sm has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-teal-600 dark:text-slate-200 dark:has-[:checked]:bg-slate-950 dark:has-[:checked]:text-teal-200"
          >
            <input
              type="radio"
              name={name}
              value={m.mode}
              checked={mode === m.mode}
              onChange={() => onMode(m.mode)}
              className="sr-only"
            />
            {m.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The review's name, with the default it takes when left empty. */
function ReviewNameField({
  id,
  value,
  onChange,
  defaultName,
}: {
  /** The input's id; its hint's is `${id}-hint`. */
  id: string;
  value: string;
  onChange: (name: string) => void;
  defaultName: string;
}) {
  return (
    <div className="max-w-md space-y-1">
      <label htmlFor={id} className={labelClass}>
        Review name
      </label>
      <input
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        maxLength={120}
        placeholder={defaultName}
        aria-describedby={`${id}-hint`}
        className={`${inputClass} min-h-10`}
      />
      <p id={`${id}-hint`} className={hintClass}>
        Leave it empty to use “{defaultName}”.
      </p>
    </div>
  );
}

/** "Uploading 500 of 2,000 rows", with a progress bar. */
function UploadProgress({ sent, total }: { sent: number; total: number }) {
  return (
    <div role="status" className="max-w-md space-y-1">
      <p className="text-sm font-medium">
        Uploading {formatCount(sent)} of {formatCount(total)} rows
      </p>
      <progress
        max={total}
        value={sent}
        aria-label="Upload progress"
        className="h-2 w-full accent-teal-700"
      />
    </div>
  );
}

/**
 * The form that starts a review: addresses pasted, from a CSV/TSV file, or an area's records; a name
 * (default: the file name or the date); "Start review" sends its rows to the server in chunks (with progress)
 * and opens it: the server looks the rows up, whether or not this page stays open.
 */
export function StartReview({
  initialArea = null,
  onStarted,
}: {
  /** A ZIP code to start from (the search screen's "Review this area"): the area panel, filled in. */
  initialArea?: string | null;
  onStarted: (review: ReviewSummary) => void;
}) {
  const id = useId();
  const [mode, setMode] = useState<Mode>(initialArea ? 'area' : 'paste');
  const [drafts, setDrafts] = useState<Record<Mode, Draft | null>>({ paste: null, csv: null, area: null });
  const [name, setName] = useState('');
  const [pasteName] = useState(() => dateName());

  const onPaste = useCallback((d: Draft | null) => setDrafts((s) => ({ ...s, paste: d })), []);
  const onFile = useCallback((d: Draft | null) => setDrafts((s) => ({ ...s, csv: d })), []);
  const onArea = useCallback((d: Draft | null) => setDrafts((s) => ({ ...s, area: d })), []);

  const draft = drafts[mode];
  const defaultName = draft?.defaultName ?? pasteName;
  const { error, setError, saving, uploaded, submit } = useStartSubmit({
    mode,
    draft,
    name: name.trim() || defaultName,
    onStarted,
  });

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-labelledby={`${id}-heading`}
      className="space-y-5 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6 dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 id={`${id}-heading`} className="text-lg font-semibold">
        Start a review
      </h2>
      <SourcePicker
        name={`${id}-mode`}
        mode={mode}
        onMode={(m) => {
          setMode(m);
          setError(null);
        }}
      />

      {/* Panels stay mounted while hidden, so switching back keeps what was typed or chosen. */}
      <div hidden={mode !== 'paste'}>
        <PasteInput onDraft={onPaste} defaultName={pasteName} />
      </div>
      <div hidden={mode !== 'csv'}>
        <CsvInput onDraft={onFile} />
      </div>
      <div hidden={mode !== 'area'}>
        <AreaInput onDraft={onArea} initialZip={initialArea} />
      </div>

      <ReviewNameField id={`${id}-name`} value={name} onChange={setName} defaultName={defaultName} />
      <ReviewCost draft={draft} />

      {error ? (
        <Alert tone="error" title="The review cannot start yet">
          <p>{error}</p>
        </Alert>
      ) : null}

      {uploaded ? <UploadProgress sent={uploaded.sent} total={uploaded.total} /> : null}

      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={saving} className="min-h-11 px-6">
          Start review
        </Button>
        <p className={hintClass}>
          Kept on the server for your account: it runs while this page is closed, and colleagues signed in to
          the same account see it. Each lookup counts against your rate limit.
        </p>
      </div>
    </form>
  );
}
