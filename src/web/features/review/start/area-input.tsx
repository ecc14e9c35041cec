import { useEffect, useId, useRef, useState } from 'react';
import type { Property } from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { hintClass, inputClass, labelClass } from '../../../components/ui/field.ts';
import { useSecondsUntil } from '../../../hooks/use-seconds-until.ts';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { formatCount } from '../../../lib/format.ts';
import { AREA_CAP, type Area, areaName, areaQuery, walkArea } from './area.ts';
import type { Draft } from './draft.ts';

type WalkState =
  | { kind: 'idle' }
  | { kind: 'walking'; found: number; page: number; waitUntil: number | null }
  | { kind: 'done'; records: Property[]; capped: boolean; area: Area }
  | { kind: 'error'; message: string };

const n = formatCount;

function Field({
  label,
  value,
  onChange,
  ...rest
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  inputMode?: 'numeric' | 'text';
  autoComplete?: string;
  maxLength?: number;
  className?: string;
}) {
  const id = useId();
  return (
    <div className={`min-w-0 space-y-1 ${rest.className ?? ''}`}>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <input
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        inputMode={rest.inputMode}
        autoComplete={rest.autoComplete ?? 'off'}
        maxLength={rest.maxLength}
        className={`${inputClass} min-h-10`}
      />
    </div>
  );
}

type AreaFieldValues = { zip: string; street: string; city: string; stateCode: string };

/** The area the fields describe, or what is missing from them. */
function toArea(mode: Area['kind'], { zip, street, city, stateCode }: AreaFieldValues): Area | string {
  if (mode === 'zip') {
    return /^\d{5}$/.test(zip.trim()) ? { kind: 'zip', zip: zip.trim() } : 'Enter a 5-digit ZIP code.';
  }
  if (street.trim() === '' || city.trim() === '' || stateCode.trim() === '')
    return 'Enter the street, the city and the state.';
  return { kind: 'street', street, city, state: stateCode };
}

/**
 * Walking an area's records: the walk's state, the draft it offers (its records, once found), the seconds
 * left while the rate limit resets, and starting or stopping it.
 */
function useAreaWalk(onDraft: (d: Draft | null) => void) {
  const [walk, setWalk] = useState<WalkState>({ kind: 'idle' });
  const controller = useRef<AbortController | null>(null);
  const waitSeconds = useSecondsUntil(
    walk.kind === 'walking' && walk.waitUntil !== null ? new Date(walk.waitUntil).toISOString() : null,
  );

  useEffect(() => () => controller.current?.abort(), []);

  useEffect(() => {
    onDraft(
      walk.kind === 'done' && walk.records.length > 0
        ? {
            kind: 'area',
            origin: areaQuery(walk.area),
            records: walk.records,
            defaultName: areaName(walk.area),
          }
        : null,
    );
  }, [walk, onDraft]);

  const stop = () => {
    controller.current?.abort();
    setWalk({ kind: 'idle' });
  };

  const start = async (a: Area) => {
    controller.current?.abort();
    const c = new AbortController();
    controller.current = c;
    setWalk({ kind: 'walking', found: 0, page: 0, waitUntil: null });
    try {
      const { records, capped } = await walkArea(a, {
        signal: c.signal,
        onPage: (found, page) => setWalk({ kind: 'walking', found, page, waitUntil: null }),
        onWait: (until) => setWalk((w) => (w.kind === 'walking' ? { ...w, waitUntil: until } : w)),
      });
      setWalk({ kind: 'done', records, capped, area: a });
    } catch (err) {
      if (c.signal.aborted) return;
      // An ended session sends the person to sign in (query-client.ts): nothing to say here.
      if (err instanceof ApiRequestError && err.code === 'unauthenticated') return;
      setWalk({
        kind: 'error',
        message: err instanceof Error ? err.message : 'The search did not finish. Try again.',
      });
    }
  };

  return { walk, waitSeconds, start, stop };
}

/** "Found 1,234 records so far (page 3)…", or what the finished walk found; empty while idle. */
function walkStatus(walk: WalkState, waitSeconds: number): string {
  if (walk.kind === 'walking')
    return walk.waitUntil !== null && waitSeconds > 0
      ? `Found ${n(walk.found)} records so far. Waiting for the rate limit to reset, ${waitSeconds} s`
      : `Found ${n(walk.found)} records so far${walk.page > 0 ? ` (page ${walk.page})` : ''}…`;
  if (walk.kind === 'done')
    return walk.records.length === 0
      ? `No records found for ${areaName(walk.area)}.`
      : `Found ${n(walk.records.length)} records for ${areaName(walk.area)}${walk.capped ? ` (the first ${n(AREA_CAP)}: the cap)` : ''}.`;
  return '';
}

/** The choice between a ZIP code and a street with its city and state. */
function AreaModePicker({
  name,
  mode,
  onMode,
}: {
  name: string;
  mode: Area['kind'];
  onMode: (mode: Area['kind']) => void;
}) {
  return (
    <fieldset className="space-y-2">
      <legend className={labelClass}>Area by</legend>
      <div className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
        {(
          [
            ['zip', 'ZIP code'],
            ['street', 'Street, city and state'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="flex items-center gap-2">
            <input
              type="radio"
              name={name}
              className="size-4 accent-teal-700 dark:accent-teal-400"
              checked={mode === value}
              onChange={() => onMode(value)}
            />
            {label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The area's fields: a ZIP code, or a street, a city and a state. */
function AreaFields({
  mode,
  values,
  onEdit,
}: {
  mode: Area['kind'];
  values: AreaFieldValues;
  onEdit: Record<keyof AreaFieldValues, (v: string) => void>;
}) {
  return mode === 'zip' ? (
    <Field
      label="ZIP code"
      value={values.zip}
      onChange={onEdit.zip}
      inputMode="numeric"
      maxLength={5}
      className="max-w-40"
    />
  ) : (
    <div className="grid gap-3 sm:grid-cols-[2fr_1.5fr_6rem]">
      <Field label="Street" value={values.street} onChange={onEdit.street} maxLength={200} />
      <Field label="City" value={values.city} onChange={onEdit.city} maxLength={100} />
      <Field label="State" value={values.stateCode} onChange={onEdit.stateCode} maxLength={20} />
    </div>
  );
}

/** "Find records" (or "Stop" while walking) and what the walk has found so far. */
function WalkControls({
  walk,
  waitSeconds,
  onFind,
  onStop,
}: {
  walk: WalkState;
  waitSeconds: number;
  onFind: () => void;
  onStop: () => void;
}) {
  return (
    <div className="flex flex-wrap items-center gap-3">
      {walk.kind === 'walking' ? (
        <Button variant="secondary" onClick={onStop}>
          Stop
        </Button>
      ) : (
        <Button variant="secondary" onClick={onFind}>
          Find records
        </Button>
      )}
      <p role="status" className="text-sm">
        {walkStatus(walk, waitSeconds)}
      </p>
    </div>
  );
}

/**
 * An area: a ZIP code, or a street with its city and state. Every record the service lists for it is
 * walked page by page (the count shows as pages arrive), up to a stated cap; each record's address becomes a
 * row, which the server looks up like any other.
 */
export function AreaInput({
  onDraft,
  initialZip = null,
}: {
  onDraft: (d: Draft | null) => void;
  initialZip?: string | null;
}) {
  const id = useId();
  const [mode, setMode] = useState<Area['kind']>('zip');
  const [zip, setZip] = useState(initialZip ?? '');
  const [street, setStreet] = useState('');
  const [city, setCity] = useState('');
  const [stateCode, setStateCode] = useState('');
  const { walk, waitSeconds, start, stop } = useAreaWalk(onDraft);
  const [problem, setProblem] = useState<string | null>(null);

  // A changed area makes earlier results stale.
  const reset = () => {
    stop();
    setProblem(null);
  };
  const edit = (set: (v: string) => void) => (v: string) => {
    set(v);
    reset();
  };
  const values = { zip, street, city, stateCode };
  const onEdit = {
    zip: edit(setZip),
    street: edit(setStreet),
    city: edit(setCity),
    stateCode: edit(setStateCode),
  };

  const find = async () => {
    const a = toArea(mode, values);
    if (typeof a === 'string') {
      setProblem(a);
      return;
    }
    setProblem(null);
    await start(a);
  };

  return (
    <div className="space-y-4">
      <AreaModePicker
        name={`${id}-mode`}
        mode={mode}
        onMode={(value) => {
          setMode(value);
          reset();
        }}
      />
      <AreaFields mode={mode} values={values} onEdit={onEdit} />
      <p className={hintClass}>
        Every record the property service lists for the area, up to the first {n(AREA_CAP)}. Each page of
        results is one request against your rate limit, and so is each record the review then looks up.
      </p>
      {problem ? (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
          {problem}
        </p>
      ) : null}
      <WalkControls walk={walk} waitSeconds={waitSeconds} onFind={() => void find()} onStop={stop} />
      {walk.kind === 'error' ? (
        <Alert tone="error" title="The area could not be listed">
          <p>{walk.message}</p>
        </Alert>
      ) : null}
    </div>
  );
}
