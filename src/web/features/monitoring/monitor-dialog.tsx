import { type FormEvent, useId, useState } from 'react';
import type { ChangeKind, Monitor, MonitorInterval, MonitorRequest } from '../../../contract/index.ts';
import { Button } from '../../components/ui/button.tsx';
import { hintClass, inputClass, labelClass } from '../../components/ui/field.ts';
import { INTERVAL_LABEL } from './api.ts';

const RULES: [ChangeKind, string][] = [
  ['confidence_dropped', 'Confidence dropped'],
  ['source_changed', 'Source changed'],
  ['other_property', 'Another property'],
  ['stale', 'Record stale'],
  ['no_longer_found', 'No longer found'],
];

/** The browser's zone: a new monitor's default (the server keeps the zone it is given). */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * The schedule of a monitored review: how often (the intervals the server offers), at what time of day in which
 * zone, which changes are worth an alert, and the month's lookup cap. Submits a MonitorRequest.
 */
export function MonitorDialog({
  intervals,
  current,
  rows,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  intervals: MonitorInterval[];
  current?: Monitor | undefined;
  /** The review's rows: what each run asks, for the default cap (a month of daily runs). */
  rows: number;
  pending: boolean;
  error: string | null;
  onSubmit: (request: MonitorRequest) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const [interval, setInterval] = useState<MonitorInterval>(
    current?.interval ?? (intervals.includes('day') ? 'day' : (intervals[0] ?? 'day')),
  );
  const [timeOfDay, setTimeOfDay] = useState(current?.timeOfDay ?? '09:00');
  const timeZone = current?.timeZone ?? browserZone();
  const [anyChange, setAnyChange] = useState(current?.rules.anyChange ?? true);
  const [kinds, setKinds] = useState<ChangeKind[]>(current?.rules.kinds ?? []);
  const [staleDays, setStaleDays] = useState(String(current?.rules.staleDays ?? 365));
  const [cap, setCap] = useState(String(current?.monthlyCap ?? Math.max(100, rows * 31)));
  const stale = Number(staleDays);
  const monthlyCap = Number(cap);
  const invalid =
    !Number.isInteger(stale) ||
    stale < 1 ||
    !Number.isInteger(monthlyCap) ||
    monthlyCap < 1 ||
    (!anyChange && kinds.length === 0);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (invalid) return;
    onSubmit({ interval, timeOfDay, timeZone, rules: { anyChange, kinds, staleDays: stale }, monthlyCap });
  };
  const toggle = (kind: ChangeKind, on: boolean) =>
    setKinds((k) => (on ? [...k.filter((x) => x !== kind), kind] : k.filter((x) => x !== kind)));
  return (
    <div
      role="dialog"
      aria-modal="false"
      aria-labelledby={`${id}-title`}
      className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 id={`${id}-title`} className="text-base font-semibold">
        Monitor this review
      </h2>
      <p className={`mt-1 ${hintClass}`}>
        Each scheduled run is a Check again; a run that finds a change you ask for leaves a notification.
      </p>
      <form className="mt-3 space-y-4" onSubmit={submit}>
        <ScheduleFields
          id={id}
          intervals={intervals}
          interval={interval}
          onInterval={setInterval}
          timeOfDay={timeOfDay}
          onTimeOfDay={setTimeOfDay}
          timeZone={timeZone}
        />
        <AlertRules
          anyChange={anyChange}
          onAnyChange={setAnyChange}
          kinds={kinds}
          onToggle={toggle}
          staleDays={staleDays}
          onStaleDays={setStaleDays}
        />
        <CapField id={id} cap={cap} onCap={setCap} rows={rows} />
        {error ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            {error}
          </p>
        ) : null}
        <div className="flex gap-2">
          <Button type="submit" disabled={pending || invalid}>
            {current ? 'Save schedule' : 'Start monitoring'}
          </Button>
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        </div>
      </form>
    </div>
  );
}

/** How often, and at what time of day in which zone (an hourly run keeps the time's minute). */
function ScheduleFields({
  id,
  intervals,
  interval,
  onInterval,
  timeOfDay,
  onTimeOfDay,
  timeZone,
}: {
  id: string;
  intervals: MonitorInterval[];
  interval: MonitorInterval;
  onInterval: (interval: MonitorInterval) => void;
  timeOfDay: string;
  onTimeOfDay: (time: string) => void;
  timeZone: string;
}) {
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <div>
        <label className={labelClass} htmlFor={`${id}-interval`}>
          Schedule
        </label>
        <select
          id={`${id}-interval`}
          className={`${inputClass} min-h-10`}
          value={interval}
          onChange={(e) => onInterval(e.target.value as MonitorInterval)}
        >
          {intervals.map((i) => (
            <option key={i} value={i}>
              {INTERVAL_LABEL[i]}
            </option>
          ))}
        </select>
      </div>
      {interval === 'minute' ? null : (
        <div>
          <label className={labelClass} htmlFor={`${id}-time`}>
            {interval === 'hour' ? 'At (its minute, every hour)' : 'Time of day'}
          </label>
          <input
            id={`${id}-time`}
            type="time"
            required
            className={`${inputClass} min-h-10`}
            value={timeOfDay}
            onChange={(e) => onTimeOfDay(e.target.value)}
          />
          <p className={hintClass}>Time zone: {timeZone}</p>
        </div>
      )}
    </div>
  );
}

/** Which changes are worth an alert: any, or the kinds ticked (stale past N days among them). */
function AlertRules({
  anyChange,
  onAnyChange,
  kinds,
  onToggle,
  staleDays,
  onStaleDays,
}: {
  anyChange: boolean;
  onAnyChange: (on: boolean) => void;
  kinds: ChangeKind[];
  onToggle: (kind: ChangeKind, on: boolean) => void;
  staleDays: string;
  onStaleDays: (days: string) => void;
}) {
  return (
    <fieldset>
      <legend className={labelClass}>Alert me when</legend>
      <label className="mt-1 flex items-center gap-2 text-sm">
        <input type="checkbox" checked={anyChange} onChange={(e) => onAnyChange(e.target.checked)} />
        Any change
      </label>
      {RULES.map(([kind, label]) => (
        <div key={kind} className="mt-1 flex flex-wrap items-center gap-2 text-sm">
          <label className="flex items-center gap-2">
            <input
              type="checkbox"
              disabled={anyChange}
              checked={anyChange || kinds.includes(kind)}
              onChange={(e) => onToggle(kind, e.target.checked)}
            />
            {label}
          </label>
          {kind === 'stale' ? (
            <span className="flex items-center gap-2">
              (not verified for more than
              <input
                aria-label="Stale after days"
                type="number"
                min={1}
                className="w-20 rounded-md border border-slate-400 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900"
                value={staleDays}
                onChange={(e) => onStaleDays(e.target.value)}
              />
              days)
            </span>
          ) : null}
        </div>
      ))}
    </fieldset>
  );
}

/** The month's lookup cap: the runaway-cost guard. */
function CapField({
  id,
  cap,
  onCap,
  rows,
}: {
  id: string;
  cap: string;
  onCap: (cap: string) => void;
  rows: number;
}) {
  return (
    <div>
      <label className={labelClass} htmlFor={`${id}-cap`}>
        Lookups a month at most
      </label>
      <input
        id={`${id}-cap`}
        type="number"
        min={1}
        className={`${inputClass} min-h-10 max-w-48`}
        value={cap}
        onChange={(e) => onCap(e.target.value)}
      />
      <p className={hintClass}>
        A run that would pass it is not made: monitoring pauses until you raise it. Each run asks{' '}
        {rows === 1 ? '1 row' : `${rows} rows`}.
      </p>
    </div>
  );
}
