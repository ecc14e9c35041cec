import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { useCreateSession } from '../api/create-session.ts';
import { configQueryOptions } from '../api/get-config.ts';

/** What went wrong with a sign-in, and what the person can do about it. */
function describeError(err: unknown): { title: string; detail: string } {
  if (!(err instanceof ApiRequestError))
    return { title: 'Sign-in failed', detail: 'Something unexpected happened. Try again.' };
  switch (err.code) {
    case 'invalid_key':
      return {
        title: 'That API key was not accepted',
        detail:
          'Check that you pasted the whole key. Keys are made in your account settings under Developer → API keys; a key that was revoked must be replaced.',
      };
    case 'plan_not_eligible':
      return { title: 'This account’s plan has no API access', detail: err.message };
    case 'rate_limited':
      return {
        title: 'Too many requests for this key',
        detail: err.resetAt
          ? `The property service accepts requests again at ${new Date(err.resetAt).toLocaleTimeString()}. Try then.`
          : 'Wait a minute, then try again.',
      };
    case 'upstream_unavailable':
    case 'upstream_timeout':
    case 'upstream_invalid':
      return {
        title: 'The property service is not answering',
        detail:
          'Your key could not be checked just now. Nothing is wrong with it as far as we know; try again in a moment.',
      };
    case 'offline':
      return { title: 'No connection', detail: err.message };
    default:
      return { title: 'Sign-in failed', detail: err.message };
  }
}

export function KeyForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [apiKey, setApiKey] = useState('');
  const [shown, setShown] = useState(false);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const ids = { input: useId(), help: useId(), error: useId() };
  const config = useQuery(configQueryOptions());
  const signIn = useCreateSession();
  const demoKeys = config.data?.demoKeys ?? null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const key = apiKey.trim();
    if (key === '') {
      setFieldError('Paste your API key first.');
      inputRef.current?.focus();
      return;
    }
    setFieldError(null);
    signIn.mutate(key, {
      onSuccess: () => {
        // The key is not kept in the page once the server has it.
        setApiKey('');
        onSignedIn();
      },
      onError: () => inputRef.current?.focus(),
    });
  };

  const fill = (key: string) => {
    setApiKey(key);
    setFieldError(null);
    signIn.reset();
    inputRef.current?.focus();
  };

  const error = signIn.isError ? describeError(signIn.error) : null;
  const describedBy = [ids.help, fieldError || error ? ids.error : null].filter(Boolean).join(' ');

  return (
    <form onSubmit={submit} noValidate className="space-y-5" aria-label="Sign in">
      <div className="space-y-2">
        <label htmlFor={ids.input} className="block text-sm font-semibold">
          API key
        </label>
        <div className="flex gap-2">
          <input
            ref={inputRef}
            id={ids.input}
            name="apiKey"
            type={shown ? 'text' : 'password'}
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
            autoComplete="off"
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
            aria-invalid={fieldError !== null || signIn.isError}
            aria-describedby={describedBy}
            className="min-h-11 w-full min-w-0 rounded-md border border-slate-400 bg-white px-3 font-mono text-sm shadow-sm dark:border-slate-600 dark:bg-slate-900"
            placeholder="pi_…"
          />
          <Button
            variant="secondary"
            aria-controls={ids.input}
            onClick={() => setShown((s) => !s)}
            className="shrink-0"
          >
            {shown ? 'Hide key' : 'Show key'}
          </Button>
        </div>
        <p id={ids.help} className="text-sm text-slate-600 dark:text-slate-400">
          Find or create a key in your Property Intelligence Service account settings, under{' '}
          <strong>Developer → API keys</strong>. API access needs a <strong>professional</strong> or{' '}
          <strong>enterprise</strong> plan. Your key stays on the PropLens server; this browser never stores
          it.
        </p>
      </div>

      <div id={ids.error}>
        {fieldError ? (
          <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
            {fieldError}
          </p>
        ) : error ? (
          <Alert tone="error" title={error.title}>
            <p>{error.detail}</p>
          </Alert>
        ) : null}
      </div>

      <Button type="submit" disabled={signIn.isPending} className="w-full">
        {signIn.isPending ? 'Checking key…' : 'Sign in'}
      </Button>

      {demoKeys && demoKeys.length > 0 ? (
        <section
          aria-labelledby="demo-heading"
          className="rounded-lg border border-dashed border-teal-600/50 bg-teal-50/60 p-4 dark:bg-teal-950/30"
        >
          <h2 id="demo-heading" className="text-sm font-semibold">
            Demo mode
          </h2>
          <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
            This PropLens runs on the built-in reference service with demo data. Demo keys are public.
          </p>
          <div className="mt-3 flex flex-wrap gap-2">
            <Button variant="secondary" onClick={() => fill((demoKeys[0] as { key: string }).key)}>
              Use demo key
            </Button>
          </div>
          <details className="mt-3 text-sm">
            <summary className="cursor-pointer text-slate-700 dark:text-slate-300">Other demo keys</summary>
            <ul className="mt-2 space-y-1">
              {demoKeys.map((k) => (
                <li key={k.key} className="flex flex-wrap items-center gap-2">
                  <code className="rounded bg-white px-1.5 py-0.5 font-mono text-xs dark:bg-slate-900">
                    {k.key}
                  </code>
                  <span className="text-slate-600 dark:text-slate-400">{k.label}</span>
                  <Button variant="ghost" className="min-h-8 px-2 py-1" onClick={() => fill(k.key)}>
                    Fill<span className="sr-only"> {k.label} key</span>
                  </Button>
                </li>
              ))}
            </ul>
          </details>
        </section>
      ) : null}
    </form>
  );
}
