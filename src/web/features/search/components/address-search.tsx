import type { ReactNode } from 'react';
import type { Property } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { useAddressCombobox } from '../hooks/use-address-combobox.ts';
import { SuggestionList } from './suggestion-list.tsx';

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
 * The address field: a combobox (ARIA 1.2 pattern, useAddressCombobox) with suggestions from the service and
 * from this browser's recent searches. Arrows move, Enter picks or searches, Escape closes then clears, and "/"
 * focuses it from anywhere on the page.
 */
export function AddressSearch({ value, onSubmit, onPick, onActivate, detail }: AddressSearchProps) {
  const box = useAddressCombobox({ value, onSubmit, onPick, onActivate });
  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> is too new for every browser agents use; role="search" says the same
    <form role="search" aria-label="Property search" onSubmit={box.submit} className="relative">
      <label htmlFor={box.ids.input} className="block text-sm font-semibold">
        Address
      </label>
      {/* The popup is positioned against the whole row, so on a phone it is as wide as the screen allows. */}
      <div className="relative mt-1 flex gap-2">
        <div className="min-w-0 flex-1">
          <input
            ref={box.inputRef}
            id={box.ids.input}
            type="text"
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={box.expanded}
            aria-controls={box.ids.list}
            aria-activedescendant={box.expanded && box.active >= 0 ? box.optionId(box.active) : undefined}
            aria-describedby={box.ids.hint}
            // The field is the page's purpose: focus it on arrival.
            // biome-ignore lint/a11y/noAutofocus: the search field is the point of this screen
            autoFocus
            autoComplete="off"
            spellCheck={false}
            enterKeyHint="search"
            maxLength={512}
            value={box.text}
            placeholder="e.g. 1100 Congress Ave, Austin, TX"
            onChange={(e) => box.change(e.target.value)}
            onFocus={box.openList}
            onBlur={box.closeList}
            onKeyDown={box.onKeyDown}
            className="min-h-12 w-full rounded-md border border-slate-400 bg-white px-3 text-base shadow-sm dark:border-slate-600 dark:bg-slate-900"
          />
          <SuggestionList box={box} detail={detail} />
        </div>
        <Button type="submit" className="min-h-12 px-5">
          Search
        </Button>
      </div>
      {box.emptySubmit ? (
        <p role="alert" className="mt-1 text-sm font-medium text-red-700 dark:text-red-300">
          Type an address to search for: a street with its city and state, or a ZIP code.
        </p>
      ) : null}
      <p id={box.ids.hint} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        Street, city and state, or ZIP code; spelling and abbreviations need not be exact.
        {box.saving
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
        {box.expanded
          ? `${box.options.length} suggestion${box.options.length === 1 ? '' : 's'} available.`
          : ''}
      </p>
    </form>
  );
}
