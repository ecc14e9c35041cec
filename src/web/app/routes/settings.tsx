import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { MAX_KEY_NAME } from '../../../contract/index.ts';
import { Button } from '../../components/ui/button.tsx';
import { sessionQueryOptions } from '../../features/auth/api/get-session.ts';
import { useSetKeyName } from '../../features/auth/index.ts';
import { CustodySection } from '../../features/settings/index.ts';
import { WebhooksSection } from '../../features/settings/webhooks/index.ts';
import { ApiRequestError } from '../../lib/api-client.ts';

/** /settings: what this sign-in's key is called where the account sees its work, and work while signed out. */
export function SettingsRoute() {
  const session = useQuery(sessionQueryOptions()).data;
  useEffect(() => {
    document.title = 'Settings · PropLens';
  }, []);
  if (!session) return null;
  return (
    <div className="max-w-2xl space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Settings</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
          For {session.account.name}, signed in with key {session.keyFingerprint ?? 'unknown'} (its
          fingerprint: PropLens never shows the key itself).
        </p>
      </div>
      <KeyNameForm current={session.keyName ?? ''} demo={session.demo} fingerprint={session.keyFingerprint} />
      <CustodySection accountId={session.accountId} />
      {/* The account's webhook endpoints go here, after "Work while I'm signed out" (issue 29). */}
      <WebhooksSection accountId={session.accountId} demo={session.demo} />
    </div>
  );
}

/** "Your name on this key": saved for the key, shown beside its fingerprint in reviews, History and Activity. */
function KeyNameForm({
  current,
  demo,
  fingerprint,
}: {
  current: string;
  demo: boolean;
  fingerprint: string | undefined;
}) {
  const id = useId();
  const help = useId();
  const [name, setName] = useState(current);
  const save = useSetKeyName();
  useEffect(() => setName(current), [current]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ name: name.trim(), ...(fingerprint ? { fingerprint } : {}) });
  };
  return (
    <section
      aria-labelledby={`${id}-heading`}
      className="space-y-3 rounded-xl border border-slate-200 p-4 dark:border-slate-800"
    >
      <h2 id={`${id}-heading`} className="text-lg font-semibold">
        Your name on this key
      </h2>
      <form onSubmit={submit} className="space-y-2">
        <label htmlFor={id} className="block text-sm font-semibold">
          Name
        </label>
        <div className="flex flex-wrap gap-2">
          <input
            id={id}
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={MAX_KEY_NAME}
            autoComplete="name"
            aria-describedby={help}
            className="min-h-11 min-w-0 flex-1 rounded-md border border-slate-400 bg-white px-3 text-sm shadow-sm dark:border-slate-600 dark:bg-slate-900"
          />
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save name'}
          </Button>
        </div>
        <p id={help} className="text-sm text-slate-600 dark:text-slate-400">
          Colleagues on this account see it beside the key’s fingerprint: who started a review, who fixed a
          row, who looked something up. Leave it empty to be shown by fingerprint only.
          {demo ? ' In the demo, the name lasts for this visit.' : ''}
        </p>
        <p role="status" className="text-sm">
          {save.isSuccess
            ? save.data.keyName
              ? `Saved: you are ${save.data.keyName}.`
              : 'Name removed.'
            : ''}
        </p>
        {save.isError ? (
          <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
            {save.error instanceof ApiRequestError ? save.error.message : 'The name could not be saved.'} Try
            again.
          </p>
        ) : null}
      </form>
    </section>
  );
}
