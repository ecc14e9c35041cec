import { useQuery } from '@tanstack/react-query';
import {
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import type { Property } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { lookupsLeftAt, useRateLimit } from '../../../lib/rate-limit-store.ts';
import { searchQueryOptions } from '../api/search-properties.ts';
import { useRecentSearches } from '../lib/recent-searches.ts';

type Option = { kind: 'recent'; address: string } | { kind: 'match'; address: string; property: Property };

/** Suggestions cost lookups from the plan: asked for after a pause in typing, not at every keystroke. */
const DEBOUNCE_MS = 400;
const MIN_CHARS = 3;

/**
 * Lookups kept for searches the person sends: below this many left in the window, suggestions pause (a tenth
 * of the limit, at least three).
 */
function suggestionReserve(limit: number): number {
  return Math.max(3, Math.ceil(limit / 10));
}

/**
 * Whether suggestions pause to save the window's last lookups: few left (as the meter counts them: a window
 * past its reset is full again), woken at the reset to ask again.
 */
function useSuggestionPause(): boolean {
  const rate = useRateLimit();
  const [, wake] = useState(0);
  const paused = rate !== null && lookupsLeftAt(rate, Date.now()) <= suggestionReserve(rate.limit);
  const resetAt = paused ? Date.parse(rate.resetAt) : 0;
  useEffect(() => {
    if (!paused) return;
    const timer = setTimeout(() => wake((n) => n + 1), Math.max(0, resetAt - Date.now()) + 50);
    return () => clearTimeout(timer);
  }, [paused, resetAt]);
  return paused;
}

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return debounced;
}

function isTypingTarget(el: EventTarget | null): boolean {
  const t = el as HTMLElement | null;
  return !!t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
}

export interface AddressSearchProps {
  /** The address in the URL: the field shows it, and it is the search that has run. */
  value: string;
  onSubmit: (address: string) => void;
  /** A suggestion was chosen: its full record is already known. */
  onPick: (property: Property) => void;
  /** A suggestion became active (arrow keys or hover): a chance to prepare its record. */
  onActivate?: (property: Property) => void;
  /**
   * Shown at the end of a suggestion from the service (`node`), and said after its address in the option's
   * accessible name (`label`): e.g. its confidence. Given by the route, so this feature need not know how a
   * record's reliability is drawn.
   */
  detail?: (property: Property) => { node: ReactNode; label: string };
}

/**
 * On a touch screen the on-screen keyboard would cover the answer: the field lets go once a search is sent,
 * its text shown from the start. With a keyboard and mouse it keeps focus, for the next search.
 */
function leaveFieldOnTouch(input: HTMLInputElement | null) {
  if (!input || !window.matchMedia?.('(pointer: coarse)').matches) return;
  input.blur();
  input.scrollLeft = 0;
}

/**
 * The address field: a combobox (ARIA 1.2 pattern) with suggestions from the service and from this
 * browser's recent searches. Arrows move, Enter picks or searches, Escape closes then clears, and "/"
 * focuses it from anywhere on the page.
 */
export function AddressSearch({ value, onSubmit, onPick, onActivate, detail }: AddressSearchProps) {
  const [text, setText] = useState(value);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [emptySubmit, setEmptySubmit] = useState(false);
  // Suggestions are for what the person types, never for text the page put in the field (the URL's or the
  // matched address): each suggestion request costs a lookup from the rate limit.
  const [typed, setTyped] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const ids = { input: useId(), list: useId(), hint: useId() };
  const recent = useRecentSearches();
  const debounced = useDebounced(text.trim(), DEBOUNCE_MS);

  useEffect(() => {
    setText(value);
    setTyped(false);
  }, [value]);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !isTypingTarget(e.target)) {
        e.preventDefault();
        inputRef.current?.focus();
        inputRef.current?.select();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const saving = useSuggestionPause();
  const wantsMatches =
    !saving &&
    typed &&
    open &&
    debounced.length >= MIN_CHARS &&
    debounced === text.trim() &&
    debounced !== value.trim();
  const matches = useQuery({ ...searchQueryOptions(debounced), enabled: wantsMatches });

  const needle = text.trim().toLowerCase();
  const options: Option[] = [
    ...recent
      .filter((a) => needle === '' || a.toLowerCase().includes(needle))
      .filter((a) => a.toLowerCase() !== value.trim().toLowerCase() || needle === '')
      .slice(0, 5)
      .map((address): Option => ({ kind: 'recent', address })),
    ...(wantsMatches && matches.data ? matches.data.items.slice(0, 8) : [])
      .filter((p) => !recent.some((r) => r.toLowerCase() === p.address.toLowerCase()))
      .map((property): Option => ({ kind: 'match', address: property.address, property })),
  ];
  const expanded = open && options.length > 0;
  const optionId = (i: number) => `${ids.list}-${i}`;

  const activate = (i: number) => {
    setActive(i);
    const o = options[i];
    if (o?.kind === 'match') onActivate?.(o.property);
  };

  const choose = (o: Option) => {
    setOpen(false);
    setActive(-1);
    setText(o.address);
    if (o.kind === 'match') onPick(o.property);
    else onSubmit(o.address);
    leaveFieldOnTouch(inputRef.current);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setOpen(false);
    setActive(-1);
    // An empty search would do nothing silently: say what to type instead.
    setEmptySubmit(text.trim() === '');
    setTyped(false);
    if (text.trim() === '') inputRef.current?.focus();
    else {
      onSubmit(text);
      leaveFieldOnTouch(inputRef.current);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) setOpen(true);
      if (options.length === 0) return;
      const step = e.key === 'ArrowDown' ? 1 : -1;
      activate(
        active < 0
          ? step === 1
            ? 0
            : options.length - 1
          : (active + step + options.length) % options.length,
      );
    } else if (e.key === 'Enter' && expanded && active >= 0 && options[active]) {
      e.preventDefault();
      choose(options[active] as Option);
    } else if (e.key === 'Escape') {
      if (expanded) {
        e.preventDefault();
        setOpen(false);
        setActive(-1);
      } else if (text !== '') {
        e.preventDefault();
        setText('');
      }
    } else if (e.key === 'Tab') {
      setOpen(false);
    }
  };

  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> is too new for every browser agents use; role="search" says the same
    <form role="search" aria-label="Property search" onSubmit={submit} className="relative">
      <label htmlFor={ids.input} className="block text-sm font-semibold">
        Address
      </label>
      {/* The popup is positioned against the whole row, so on a phone it is as wide as the screen allows. */}
      <div className="relative mt-1 flex gap-2">
        <div className="min-w-0 flex-1">
          <input
            ref={inputRef}
            id={ids.input}
            type="text"
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={expanded}
            aria-controls={ids.list}
            aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
            aria-describedby={ids.hint}
            // The field is the page's purpose: focus it on arrival.
            // biome-ignore lint/a11y/noAutofocus: the search field is the point of this screen
            autoFocus
            autoComplete="off"
            spellCheck={false}
            enterKeyHint="search"
            maxLength={512}
            value={text}
            placeholder="e.g. 1100 Congress Ave, Austin, TX"
            onChange={(e) => {
              setText(e.target.value);
              setTyped(true);
              setEmptySubmit(false);
              setOpen(true);
              setActive(-1);
            }}
            onFocus={() => setOpen(true)}
            onBlur={() => setOpen(false)}
            onKeyDown={onKeyDown}
            className="min-h-12 w-full rounded-md border border-slate-400 bg-white px-3 text-base shadow-sm dark:border-slate-600 dark:bg-slate-900"
          />
          <div
            id={ids.list}
            role="listbox"
            aria-label="Suggestions"
            hidden={!expanded}
            className="absolute left-0 right-0 top-full z-30 mt-1 max-h-96 overflow-auto rounded-md border border-slate-300 bg-white py-1 shadow-lg dark:border-slate-600 dark:bg-slate-900"
          >
            {options.map((o, i) => (
              // Options are not focusable by design: focus stays in the field and aria-activedescendant
              // points at the active one (the WAI-ARIA combobox pattern). Arrow keys in the field move it.
              // biome-ignore lint/a11y/useFocusableInteractive: see above
              <div
                key={`${o.kind}:${o.address}`}
                id={optionId(i)}
                role="option"
                aria-selected={i === active}
                aria-label={
                  o.kind === 'recent'
                    ? `Recent search: ${o.address}`
                    : [o.address, detail?.(o.property).label].filter(Boolean).join(', ')
                }
                onMouseDown={(e) => {
                  e.preventDefault(); // keep focus in the field
                  choose(o);
                }}
                onMouseEnter={() => activate(i)}
                className={`flex cursor-pointer items-center gap-2 px-3 py-2 text-sm ${i === active ? 'bg-teal-50 text-teal-950 dark:bg-teal-900 dark:text-white' : ''}`}
              >
                <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4 shrink-0 text-slate-500">
                  {o.kind === 'recent' ? (
                    <path
                      d="M10 4a6 6 0 1 1-6 6M4 5v5h5M10 7v3l2 2"
                      fill="none"
                      stroke="currentColor"
                      strokeWidth="1.6"
                      strokeLinecap="round"
                    />
                  ) : (
                    <path
                      d="M10 2.5a5 5 0 0 1 5 5c0 4-5 10-5 10s-5-6-5-10a5 5 0 0 1 5-5z"
                      fill="none"
                      stroke="currentColor"
                      strokeWidth="1.6"
                    />
                  )}
                </svg>
                <span className="min-w-0 flex-1 break-words">{o.address}</span>
                {o.kind === 'match' && detail ? (
                  <span aria-hidden="true" className="shrink-0">
                    {detail(o.property).node}
                  </span>
                ) : null}
              </div>
            ))}
          </div>
        </div>
        <Button type="submit" className="min-h-12 px-5">
          Search
        </Button>
      </div>
      {emptySubmit ? (
        <p role="alert" className="mt-1 text-sm font-medium text-red-700 dark:text-red-300">
          Type an address to search for: a street with its city and state, or a ZIP code.
        </p>
      ) : null}
      <p id={ids.hint} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        Street, city and state, or ZIP code; spelling and abbreviations need not be exact.
        {saving
          ? ' Suggestions are paused to save your last lookups; Search still works.'
          : ' Suggestions count as lookups.'}
        {/* A keyboard shortcut means nothing on a touch screen. */}
        <span className="pointer-coarse:hidden">
          {' '}
          Press <kbd className="rounded border border-slate-300 px-1 dark:border-slate-600">/</kbd> to jump
          here.
        </span>
      </p>
      <p className="sr-only" aria-live="polite">
        {expanded ? `${options.length} suggestion${options.length === 1 ? '' : 's'} available.` : ''}
      </p>
    </form>
  );
}
