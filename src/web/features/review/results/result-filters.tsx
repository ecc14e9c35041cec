import { useId } from 'react';
import { formatCount } from '../../../lib/format.ts';
import { CONFIDENCE_WORD, CONFIDENCES } from '../../property/index.ts';
import { DECISION_TEXT, DECISIONS, type DecisionFilter } from './decisions.ts';
import { MATCH_TEXT, MATCHES, OUTCOME_TEXT, OUTCOMES, TIER_TEXT, TIERS } from './stats.ts';
import { describeFilters, type ResultFilters } from './stats-filters.ts';

const FIELD =
  'mt-1 block w-full min-h-10 rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100';
const LABEL = 'block text-xs font-semibold text-slate-700 dark:text-slate-300';

const ANY = '';
const GROUP = '__group';

/** One filter over a fixed set of values, "any" first. */
function ChoiceFilter<T extends string>({
  id,
  label,
  any,
  value,
  choices,
  text,
  onChange,
}: {
  id: string;
  label: string;
  any: string;
  value: T | null;
  choices: readonly T[];
  text: Record<T, string>;
  onChange: (value: T | null) => void;
}) {
  return (
    <div>
      <label htmlFor={id} className={LABEL}>
        {label}
      </label>
      <select
        id={id}
        value={value ?? ANY}
        onChange={(e) => onChange((e.target.value || null) as T | null)}
        className={FIELD}
      >
        <option value={ANY}>{any}</option>
        {choices.map((c) => (
          <option key={c} value={c}>
            {text[c]}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The free-text search over the results. */
function SearchFilter({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string;
  onChange: (text: string) => void;
}) {
  return (
    <div className="col-span-2 sm:col-span-3 lg:col-span-2">
      <label htmlFor={id} className={LABEL}>
        Search results
      </label>
      <input
        id={id}
        type="search"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder="Address, source or property ID"
        className={FIELD}
      />
    </div>
  );
}

/**
 * The source filter: every source in the review, or the group a chart bar chose (a kind of source, or
 * several), shown as an option of its own while it is on.
 */
function SourceFilter({
  id,
  source,
  sources,
  onChange,
}: {
  id: string;
  source: ResultFilters['source'];
  sources: { name: string; count: number }[];
  onChange: (source: ResultFilters['source']) => void;
}) {
  const sourceValue =
    source === null ? ANY : !source.byKind && source.names.length === 1 ? (source.names[0] ?? ANY) : GROUP;
  return (
    <div>
      <label htmlFor={id} className={LABEL}>
        Source
      </label>
      <select
        id={id}
        value={sourceValue}
        onChange={(e) => {
          const v = e.target.value;
          if (v === GROUP) return;
          onChange(v === ANY ? null : { label: v, names: [v] });
        }}
        className={FIELD}
      >
        <option value={ANY}>All sources</option>
        {source && sourceValue === GROUP ? <option value={GROUP}>{source.label}</option> : null}
        {sources.map((s) => (
          <option key={s.name} value={s.name}>
            {/* The name already ends in its state, "(TX)": the count after a dot, not in brackets again. */}
            {s.name} · {formatCount(s.count)}
          </option>
        ))}
      </select>
    </div>
  );
}

const DECISION_FILTERS: readonly DecisionFilter[] = [...DECISIONS, 'undecided'];
const DECISION_FILTER_TEXT: Record<DecisionFilter, string> = {
  ...DECISION_TEXT,
  undecided: 'No decision yet',
};

/** The table's filters: the same state the chart bars set. */
export function ResultFiltersBar({
  filters,
  onChange,
  sources,
  changed = 0,
  looks = 0,
  excluded = 0,
}: {
  filters: ResultFilters;
  onChange: (patch: Partial<ResultFilters>) => void;
  /** Every source in the review, largest first. */
  sources: { name: string; count: number }[];
  /** Rows whose record changed since the previous run: offered as a filter when there are any. */
  changed?: number;
  /** Matches that need a look: offered as a filter when there are any. */
  looks?: number;
  /** Rows a reviewer excluded: offered as a filter when there are any. */
  excluded?: number;
}) {
  const id = useId();
  return (
    <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-7 print:hidden">
      <SearchFilter id={`${id}-text`} value={filters.text} onChange={(text) => onChange({ text })} />
      <ChoiceFilter
        id={`${id}-outcome`}
        label="Outcome"
        any="All outcomes"
        value={filters.outcome}
        choices={OUTCOMES}
        text={OUTCOME_TEXT}
        onChange={(outcome) => onChange({ outcome })}
      />
      <ChoiceFilter
        id={`${id}-match`}
        label="Match"
        any="All matches"
        value={filters.match}
        choices={MATCHES}
        text={MATCH_TEXT}
        onChange={(match) => onChange({ match })}
      />
      <ChoiceFilter
        id={`${id}-confidence`}
        label="Confidence"
        any="All levels"
        value={filters.confidence}
        choices={CONFIDENCES}
        text={CONFIDENCE_WORD}
        onChange={(confidence) => onChange({ confidence })}
      />
      <SourceFilter
        id={`${id}-source`}
        source={filters.source}
        sources={sources}
        onChange={(source) => onChange({ source })}
      />
      <ChoiceFilter
        id={`${id}-tier`}
        label="Age tier"
        any="All ages"
        value={filters.tier}
        choices={TIERS}
        text={TIER_TEXT}
        onChange={(tier) => onChange({ tier })}
      />
      <ChoiceFilter
        id={`${id}-decision`}
        label="Decision"
        any="All decisions"
        value={filters.decision}
        choices={DECISION_FILTERS}
        text={DECISION_FILTER_TEXT}
        onChange={(decision) => onChange({ decision })}
      />
      <ToggleFilter
        label="Needs a look"
        count={looks}
        checked={filters.needsLook}
        onChange={(needsLook) => onChange({ needsLook })}
      />
      <ToggleFilter
        label="Changed"
        count={changed}
        checked={filters.changed}
        onChange={(changed) => onChange({ changed })}
      />
      <ToggleFilter
        label="Excluded"
        count={excluded}
        checked={filters.excluded}
        onChange={(excluded) => onChange({ excluded })}
      />
    </div>
  );
}

/** A yes/no filter offered while any row has it (or while it is on): "Changed (12)". */
function ToggleFilter({
  label,
  count,
  checked,
  onChange,
}: {
  label: string;
  count: number;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  if (count === 0 && !checked) return null;
  return (
    <div className="flex items-end">
      <label className="flex min-h-10 items-center gap-2 text-sm font-semibold">
        <input
          type="checkbox"
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
          className="size-4 accent-teal-700"
        />
        {label} ({formatCount(count)})
      </label>
    </div>
  );
}

/** "Showing 42 of 300 rows, filtered by [Confidence: High ×]": what the table shows, and a way back. */
export function FilterChips({
  filters,
  shown,
  total,
  pending = false,
  onClear,
  onClearAll,
}: {
  filters: ResultFilters;
  shown: number;
  total: number;
  /** The table is still catching up with the filters: no count of rows it is about to drop. */
  pending?: boolean;
  onClear: (key: keyof ResultFilters) => void;
  onClearAll: () => void;
}) {
  const chips = describeFilters(filters);
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm print:hidden">
      <p role="status" className="font-medium">
        {pending
          ? 'Filtering…'
          : chips.length === 0
            ? `Showing all ${formatCount(total)} rows`
            : `Showing ${formatCount(shown)} of ${formatCount(total)} rows, filtered by`}
      </p>
      {chips.length > 0 ? (
        <>
          <ul aria-label="Active filters" className="flex flex-wrap gap-2">
            {chips.map((c) => (
              <li key={c.key}>
                <button
                  type="button"
                  onClick={() => onClear(c.key)}
                  aria-label={`Clear filter ${c.text}`}
                  className="inline-flex min-h-8 items-center gap-1.5 rounded-full border border-teal-700 bg-teal-50 px-3 py-1 font-medium text-teal-900 hover:bg-teal-100 dark:border-teal-400 dark:bg-teal-950 dark:text-teal-100 dark:hover:bg-teal-900"
                >
                  {c.text}
                  <svg aria-hidden="true" viewBox="0 0 20 20" className="size-3.5">
                    <path
                      d="M5 5l10 10M15 5L5 15"
                      stroke="currentColor"
                      strokeWidth="2.2"
                      strokeLinecap="round"
                    />
                  </svg>
                </button>
              </li>
            ))}
          </ul>
          {chips.length > 1 ? (
            <button
              type="button"
              onClick={onClearAll}
              className="min-h-8 rounded px-2 text-teal-800 underline underline-offset-2 dark:text-teal-300"
            >
              Clear all filters
            </button>
          ) : null}
        </>
      ) : null}
    </div>
  );
}
