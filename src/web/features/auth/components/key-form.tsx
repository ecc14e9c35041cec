import { useQuery } from '@tanstack/react-query';
import { type FormEvent, Fragment, type ReactNode, type RefObject, useId, useRef, useState } from 'react';
import { type DemoKey, MAX_KEY_NAME } from '../../../../contract/index.ts';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { ApiRequestError } from '../../../lib/api-client.ts';
import { DATE_TIME, formatDateTime } from '../../../lib/format.ts';
import { useCreateSession } from '../api/create-session.ts';
import { configQueryOptions } from '../api/get-config.ts';

type Explained = { title: string; detail: string };

const SERVICE_DOWN: Explained = {
  title: 'The property service is not answering',
  detail:
    'Your key could not be checked just now. Nothing is wrong with it as far as we know; try again in a moment.',
};

/** What went wrong with a sign-in, and what the person can do about it, by the BFF's error code. */
const SIGN_IN_ERRORS: Partial<Record<ApiRequestError['code'], (err: ApiRequestError) => Explained>> = {
  invalid_key: () => ({
    title: 'That API key was not accepted',
    detail:
      'Check that you pasted the whole key. Keys are made in your account settings under Developer → API keys; a key that was revoked must be replaced.',
  }),
  plan_not_eligible: (err) => ({ title: 'This account’s plan has no API access', detail: err.message }),
  rate_limited: (err) => ({
    title: 'Too many requests for this key',
    detail: err.resetAt
      ? `The property service accepts requests again at ${formatDateTime(err.resetAt, DATE_TIME.time) ?? 'a later time'}. Try then.`
      : 'Wait a moment, then try again.',
  }),
  too_many_sign_ins: (err) => ({ title: 'Too many sign-ins from this network', detail: err.message }),
  upstream_unavailable: () => SERVICE_DOWN,
  upstream_timeout: () => SERVICE_DOWN,
  upstream_invalid: () => SERVICE_DOWN,
  offline: (err) => ({ title: 'No connection', detail: err.message }),
};

function describeError(err: unknown): Explained {
  if (!(err instanceof ApiRequestError))
    return { title: 'Sign-in failed', detail: 'Something unexpected happened. Try again.' };
  return SIGN_IN_ERRORS[err.code]?.(err) ?? { title: 'Sign-in failed', detail: err.message };
}

// An e-mail address or a web address in a message of ours (the sales contact is either, as configured).
const CONTACT = /([\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?:\/\/[^\s<>"]+[^\s<>".,;:!?)])/g;

/** The message's text with its e-mail and web addresses as links, so "contact sales" is one click. */
export function WithContactLinks({ text }: { text: string }): ReactNode {
  const nodes: ReactNode[] = [];
  let at = 0;
  for (const match of text.matchAll(CONTACT)) {
    const contact = match[0];
    if (match.index > at) nodes.push(<Fragment key={at}>{text.slice(at, match.index)}</Fragment>);
    nodes.push(
      <a
        key={match.index}
        href={contact.startsWith('http') ? contact : `mailto:${contact}`}
        className="font-semibold underline underline-offset-2"
      >
        {contact}
      </a>,
    );
    at = match.index + contact.length;
  }
  if (at < text.length) nodes.push(<Fragment key={at}>{text.slice(at)}</Fragment>);
  return nodes;
}

/** The demo key that shows the product at its best: one with API access, professional first. */
function tryTheDemoKey(keys: DemoKey[]): DemoKey | undefined {
  return keys.find((k) => k.plan === 'professional') ?? keys.find((k) => k.plan !== 'starter');
}

export interface KeyFormProps {
  /** A key is on its way to be checked: a chance to note where things stand and fetch what comes next. */
  onSigningIn?: () => void;
  onSignedIn?: () => void;
}

export function KeyForm({ onSignedIn, onSigningIn }: KeyFormProps) {
  const [apiKey, setApiKey] = useState('');
  const [name, setName] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [viaDemo, setViaDemo] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const ids = { input: useId(), help: useId(), error: useId() };
  const signIn = useCreateSession();

  const send = (key: string, demo: boolean) => {
    setFieldError(null);
    setViaDemo(demo);
    onSigningIn?.();
    signIn.mutate(
      { apiKey: key, ...(demo ? {} : { name }) },
      {
        onSuccess: () => {
          // The key is not kept in the page once the server has it.
          setApiKey('');
          onSignedIn?.();
        },
        onError: () => inputRef.current?.focus(),
      },
    );
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const key = apiKey.trim();
    if (key === '') {
      setFieldError('Paste your API key first.');
      inputRef.current?.focus();
      return;
    }
    send(key, false);
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
    <div className="space-y-6">
      <form onSubmit={submit} noValidate className="space-y-5" aria-label="Sign in">
        <KeyField
          ids={ids}
          inputRef={inputRef}
          value={apiKey}
          onChange={setApiKey}
          invalid={fieldError !== null || signIn.isError}
          describedBy={describedBy}
        />
        <div id={ids.error}>
          <SignInProblem fieldError={fieldError} error={error} />
        </div>
        <NameField value={name} onChange={setName} />

        <Button type="submit" disabled={signIn.isPending} className="w-full">
          {signIn.isPending && !viaDemo ? 'Checking key…' : 'Sign in'}
        </Button>
      </form>

      <DemoEntry
        pending={signIn.isPending}
        viaDemo={viaDemo}
        onTry={(key) => send(key, true)}
        onFill={fill}
      />
    </div>
  );
}

/** The demo panel, when this PropLens runs on the embedded reference service (its configuration says so). */
function DemoEntry(props: {
  pending: boolean;
  viaDemo: boolean;
  onTry: (key: string) => void;
  onFill: (key: string) => void;
}) {
  const demoKeys = useQuery(configQueryOptions()).data?.demoKeys ?? null;
  const demoKey = demoKeys ? tryTheDemoKey(demoKeys) : undefined;
  if (!demoKeys || !demoKey) return null;
  return (
    <DemoPanel {...props} demoKeys={demoKeys} demoKey={demoKey} onTry={() => props.onTry(demoKey.key)} />
  );
}

/** On the embedded reference service: one click into the demo, or any public demo key filled in. */
function DemoPanel({
  demoKeys,
  demoKey,
  pending,
  viaDemo,
  onTry,
  onFill,
}: {
  demoKeys: DemoKey[];
  demoKey: DemoKey;
  pending: boolean;
  viaDemo: boolean;
  onTry: () => void;
  onFill: (key: string) => void;
}) {
  const id = useId();
  return (
    <section
      aria-labelledby={id}
      className="rounded-lg border border-dashed border-teal-600/50 bg-teal-50/60 p-4 dark:bg-teal-950/30"
    >
      <h2 id={id} className="text-sm font-semibold">
        Demo mode
      </h2>
      <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
        This PropLens runs on the built-in reference service with demo data. Demo keys are public.
      </p>
      <div className="mt-3 grid gap-2 sm:grid-cols-2">
        <Button disabled={pending} onClick={onTry}>
          {pending && viaDemo ? 'Signing in…' : 'Try the demo'}
        </Button>
        <Button variant="secondary" onClick={() => onFill(demoKey.key)}>
          Use demo key
        </Button>
      </div>
      <details className="mt-4 text-sm">
        <summary className="cursor-pointer text-slate-700 dark:text-slate-300">
          All demo keys ({demoKeys.length})
        </summary>
        <ul className="mt-2 divide-y divide-teal-600/20 rounded-md border border-teal-600/30 bg-white dark:bg-slate-900">
          {demoKeys.map((k) => (
            <li key={k.key} className="flex items-center gap-3 px-3 py-2">
              <div className="min-w-0 flex-1">
                <code className="block break-all font-mono text-xs">{k.key}</code>
                <span className="text-xs text-slate-600 dark:text-slate-400">{k.label}</span>
              </div>
              <Button variant="ghost" className="min-h-8 shrink-0 px-3 py-1" onClick={() => onFill(k.key)}>
                Fill <span className="sr-only">{`the ${k.label} key`}</span>
              </Button>
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}

/** The key field, its Show key / Hide key toggle, and where to find a key. */
function KeyField({
  ids,
  inputRef,
  value,
  onChange,
  invalid,
  describedBy,
}: {
  ids: { input: string; help: string };
  inputRef: RefObject<HTMLInputElement | null>;
  value: string;
  onChange: (value: string) => void;
  invalid: boolean;
  describedBy: string;
}) {
  const [shown, setShown] = useState(false);
  return (
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
          value={value}
          onChange={(e) => onChange(e.target.value)}
          // Pasting a key is the one thing to do on this screen.
          // biome-ignore lint/a11y/noAutofocus: the key field is the point of this screen
          autoFocus
          autoComplete="off"
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          aria-invalid={invalid}
          aria-describedby={describedBy}
          className="min-h-11 w-full min-w-0 rounded-md border border-slate-400 bg-white px-3 font-mono text-sm shadow-sm dark:border-slate-600 dark:bg-slate-900"
          placeholder="pi_…"
        />
        <Button
          variant="secondary"
          aria-controls={ids.input}
          onClick={() => setShown((s) => !s)}
          className="w-28 shrink-0"
        >
          {shown ? 'Hide key' : 'Show key'}
        </Button>
      </div>
      <p id={ids.help} className="text-sm text-slate-600 dark:text-slate-400">
        Find or create a key in your Property Intelligence Service account settings, under{' '}
        <strong>Developer → API keys</strong>. API access needs a <strong>professional</strong> or{' '}
        <strong>enterprise</strong> plan. Your key stays on the PropLens server; this browser never stores it.
      </p>
    </div>
  );
}

/** "Your name on this key": optional; shown beside the key's fingerprint wherever the account sees its work. */
function NameField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const id = useId();
  const help = useId();
  return (
    <div className="space-y-2">
      <label htmlFor={id} className="block text-sm font-semibold">
        Your name on this key{' '}
        <span className="font-normal text-slate-600 dark:text-slate-400">(optional)</span>
      </label>
      <input
        id={id}
        name="keyName"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        maxLength={MAX_KEY_NAME}
        autoComplete="name"
        aria-describedby={help}
        className="min-h-11 w-full rounded-md border border-slate-400 bg-white px-3 text-sm shadow-sm dark:border-slate-600 dark:bg-slate-900"
      />
      <p id={help} className="text-sm text-slate-600 dark:text-slate-400">
        Colleagues see it beside this key’s fingerprint in reviews, History and Activity. Change it in
        Settings.
      </p>
    </div>
  );
}

/** A missing key, said beside the field; a refused one, as an alert with what to do (and a sales link). */
function SignInProblem({ fieldError, error }: { fieldError: string | null; error: Explained | null }) {
  return (
    <>
      {fieldError ? (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
          {fieldError}
        </p>
      ) : error ? (
        <Alert tone="error" title={error.title}>
          <p>
            <WithContactLinks text={error.detail} />
          </p>
        </Alert>
      ) : null}
    </>
  );
}
