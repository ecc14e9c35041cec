import { Button } from '../../../components/ui/button.tsx';
import { type ColumnChoice, joinAddress, lacksPlace, plausibleChoices, readsMailing } from './columns.ts';
import type { Loaded } from './loaded.ts';
import type { RowInput } from './rows.ts';

const SHOWN_ROWS = 2;
const SHOWN_CHOICES = 4;

const quoted = (addresses: readonly string[]) =>
  addresses.length === 0 ? 'nothing' : addresses.map((a) => `“${a}”`).join(', ');

/** Which columns a choice reads, in the select's names ("3 · Situs Address with the city, state and ZIP"). */
function describeChoice(choice: ColumnChoice, columns: readonly string[]): string {
  if (choice.kind === 'single') return columns[choice.column] ?? `Column ${choice.column + 1}`;
  return `${columns[choice.street] ?? `Column ${choice.street + 1}`} with the city, state and ZIP columns`;
}

/**
 * Before Start, when the address columns are a guess (no header named them), the owner's mailing address (the
 * file names no other), or the addresses say no town (a street alone matches in many): what the choice sends for the first rows, and what each other plausible choice
 * would, so the reviewer picks instead of spending a lookup a row on the wrong thing.
 */
export function ChoiceCheck({
  state,
  rows,
  columns,
  onChoose,
}: {
  state: Loaded;
  rows: readonly RowInput[];
  columns: readonly string[];
  onChoose: (choice: ColumnChoice) => void;
}) {
  // The first rows tell: a 100,000-row file is not walked on every render.
  const chosen = rows
    .slice(0, 50)
    .map((r) => r.address)
    .filter((a) => a !== '');
  const placeless = lacksPlace(chosen);
  const header = state.hasHeader ? (state.table.records[0] ?? []) : [];
  const mailing = readsMailing(header, state.choice);
  if (!state.unsure && !placeless && !mailing) return null;
  const body = state.table.records.slice(state.hasHeader ? 1 : 0);
  const first = (choice: ColumnChoice) =>
    body
      .slice(0, 20)
      .map((r) => joinAddress(r, choice))
      .filter((a) => a !== '')
      .slice(0, SHOWN_ROWS);
  const mine = quoted(chosen.slice(0, SHOWN_ROWS));
  const seen = new Set([mine]);
  const others = plausibleChoices(state.table.records, state.hasHeader, state.choice)
    .map((choice) => ({ choice, sends: quoted(first(choice)) }))
    .filter(({ sends }) => !seen.has(sends) && seen.add(sends))
    .slice(0, SHOWN_CHOICES);
  return (
    <section
      aria-label="Check the address columns"
      className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-100"
    >
      {mailing ? (
        <p className="font-medium">
          These are the owner’s mailing address columns, not the property’s: each row is looked up at the
          mailing address, which is often another property or a P.O. box. Pick the property’s columns if the
          file has them.
        </p>
      ) : null}
      {state.unsure ? (
        <p className="font-medium">
          No column is named like an address, so the columns were guessed from what the cells hold. Check them
          before you start: each row costs a lookup.
        </p>
      ) : null}
      <p>
        <span className="font-medium">As chosen:</span> {mine}
        {placeless ? ' — no city or ZIP: many streets share that name.' : null}
      </p>
      {others.length > 0 ? (
        <ul className="space-y-1">
          {others.map(({ choice, sends }) => (
            <li key={JSON.stringify(choice)} className="flex flex-wrap items-center gap-2">
              <span>
                {describeChoice(choice, columns)} would send {sends}
              </span>
              <Button
                type="button"
                variant="secondary"
                className="min-h-8 px-3 py-1 text-xs"
                aria-label={`Use this: ${describeChoice(choice, columns)}`}
                onClick={() => onChoose(choice)}
              >
                Use this
              </Button>
            </li>
          ))}
        </ul>
      ) : placeless ? (
        <p>Pick the city, state or ZIP columns if the file has them.</p>
      ) : null}
    </section>
  );
}
