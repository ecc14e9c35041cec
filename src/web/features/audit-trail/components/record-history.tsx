import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { useKeyNames } from '../../auth/index.ts';
import { historyQueryOptions } from '../api/get-audit-entries.ts';
import { AuditTable } from './audit-table.tsx';

/**
 * "History" of a record: every time this account looked the property up and what it said each time, so a
 * reviewer sees when its confidence or verification changed. Loaded when opened.
 */
export function RecordHistory({ accountId, propertyId }: { accountId: string; propertyId: string }) {
  const [open, setOpen] = useState(false);
  const history = useQuery({ ...historyQueryOptions(accountId, propertyId), enabled: open });
  const names = useKeyNames(open);
  return (
    <section aria-label="History" className="space-y-2 print:hidden">
      <Button variant="secondary" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        History
      </Button>
      {open ? (
        history.data ? (
          history.data.entries.length === 0 ? (
            <p className="text-sm">No earlier lookups of this property by your account.</p>
          ) : (
            <AuditTable
              entries={history.data.entries}
              label={`History of ${propertyId}`}
              {...(names ? { names } : {})}
            />
          )
        ) : history.isError ? (
          <p role="alert" className="text-sm">
            The history could not be loaded. Try again.
          </p>
        ) : (
          <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
            Loading the history…
          </p>
        )
      ) : null}
    </section>
  );
}
