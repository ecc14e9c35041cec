import type { ReactNode } from 'react';
import type { Property } from '../../../../contract/index.ts';
import type { Combobox } from '../hooks/use-address-combobox.ts';
import type { Option } from '../hooks/use-suggestions.ts';

/**
 * The combobox's listbox: recent searches and the service's matches. Options are not focusable by design:
 * focus stays in the field and aria-activedescendant points at the active one (the WAI-ARIA combobox pattern).
 */
export function SuggestionList({
  box,
  detail,
}: {
  box: Combobox;
  detail?: ((property: Property) => { node: ReactNode; label: string }) | undefined;
}) {
  return (
    <div
      id={box.ids.list}
      role="listbox"
      aria-label="Suggestions"
      hidden={!box.expanded}
      className="absolute left-0 right-0 top-full z-30 mt-1 max-h-96 overflow-auto rounded-md border border-slate-300 bg-white py-1 shadow-lg dark:border-slate-600 dark:bg-slate-900"
    >
      {box.options.map((o, i) => (
        // biome-ignore lint/a11y/useFocusableInteractive: focus stays in the field (see above)
        <div
          key={`${o.kind}:${o.address}`}
          id={box.optionId(i)}
          role="option"
          aria-selected={i === box.active}
          aria-label={
            o.kind === 'recent'
              ? `Recent search: ${o.address}`
              : [o.address, detail?.(o.property).label].filter(Boolean).join(', ')
          }
          onMouseDown={(e) => {
            e.preventDefault(); // keep focus in the field
            box.choose(o);
          }}
          onMouseEnter={() => box.activate(i)}
          className={`flex cursor-pointer items-center gap-2 px-3 py-2 text-sm ${i === box.active ? 'bg-teal-50 text-teal-950 dark:bg-teal-900 dark:text-white' : ''}`}
        >
          <OptionIcon kind={o.kind} />
          <span className="min-w-0 flex-1 break-words">{o.address}</span>
          {o.kind === 'match' && detail ? (
            <span aria-hidden="true" className="shrink-0">
              {detail(o.property).node}
            </span>
          ) : null}
        </div>
      ))}
    </div>
  );
}

/** A clock for a recent search, a pin for a property the service found. */
function OptionIcon({ kind }: { kind: Option['kind'] }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4 shrink-0 text-slate-500">
      {kind === 'recent' ? (
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
  );
}
