import type { JSONWebKeySet } from 'jose';
import { type DragEvent, useEffect, useId, useState } from 'react';
import { type PacketVerdict, signOffLine, verifyPacket } from '../../../evidence-verify/packet.ts';
import { OpenPageShell } from '../layouts.tsx';

/** This server's evidence keys (src/bff/evidence/keys-route.ts), public, no sign-in. */
export const EVIDENCE_KEYS_PATH = '/.well-known/proplens-evidence-keys.json';

/** What the keys are checked against: the option chosen, and the JWKS file once one was read (kept while away). */
type Keys = { from: 'server' | 'file'; file: { jwks: JSONWebKeySet; name: string } | null };
type Check =
  | { kind: 'idle' }
  | { kind: 'checking'; name: string }
  | { kind: 'done'; name: string; verdict: PacketVerdict }
  | { kind: 'failed'; text: string };

/**
 * A file input drawn as the app's secondary button (components/ui/button.tsx) through the `file:` variant, the
 * name of the chosen file (or "No file chosen") beside it.
 */
const FILE_INPUT =
  'block w-full max-w-full cursor-pointer text-sm text-slate-700 dark:text-slate-300 ' +
  'file:mr-3 file:inline-flex file:min-h-10 file:cursor-pointer file:items-center file:rounded-md file:border ' +
  'file:border-slate-300 file:bg-white file:px-4 file:py-2 file:text-sm file:font-semibold file:text-slate-800 ' +
  'file:transition-colors hover:file:bg-slate-100 dark:file:border-slate-600 dark:file:bg-slate-900 ' +
  'dark:file:text-slate-100 dark:hover:file:bg-slate-800';

/**
 * /verify, open to anyone: checks an evidence packet in this browser (src/evidence-verify/packet.ts: the hashes
 * and the EdDSA signature with WebCrypto) against this server's published keys or a JWKS file the reader picks.
 * The packet is read from the disk and never sent anywhere; only the keys are fetched, from this server. Signed
 * in, the page has the usual header and navigation (as the page-not-found one does); signed out, the plain bar.
 */
export function VerifyRoute() {
  const [keys, setKeys] = useState<Keys>({ from: 'server', file: null });
  const [check, setCheck] = useState<Check>({ kind: 'idle' });
  useEffect(() => {
    document.title = 'Verify evidence · PropLens';
  }, []);

  const verify = async (file: File) => {
    setCheck({ kind: 'checking', name: file.name });
    try {
      const jwks = keys.from === 'server' ? await serverKeys() : keys.file?.jwks;
      if (!jwks)
        throw new Error('Choose the JWKS file to check the signature against, or this server’s keys.');
      const verdict = await verifyPacket(new Uint8Array(await file.arrayBuffer()), jwks);
      setCheck({ kind: 'done', name: file.name, verdict });
    } catch (err) {
      setCheck({ kind: 'failed', text: (err as Error).message });
    }
  };

  return (
    <OpenPageShell>
      <div className="max-w-2xl space-y-6">
        <div>
          <h1 className="text-2xl font-bold tracking-tight">Verify an evidence packet</h1>
          <p className="mt-2 text-slate-700 dark:text-slate-300">
            Choose a <code className="font-mono text-sm">.evidence.zip</code> exported from PropLens. It is
            checked here, in your browser, and never uploaded: every file against the hashes in its manifest,
            and the manifest’s signature against the keys below.
          </p>
        </div>
        <KeysChoice
          keys={keys}
          onChange={(chosen) => {
            setKeys(chosen);
            // A verdict stands for the keys it was checked against: another choice clears it.
            setCheck({ kind: 'idle' });
          }}
        />
        <PacketPicker onPick={verify} />
        <Outcome check={check} />
      </div>
    </OpenPageShell>
  );
}

async function serverKeys(): Promise<JSONWebKeySet> {
  const res = await fetch(EVIDENCE_KEYS_PATH, { credentials: 'omit' });
  const unread = (why: string) =>
    new Error(`This server’s keys could not be read (${why}). Choose a JWKS file instead.`);
  if (!res.ok) throw unread(String(res.status));
  // A page where the keys should be (a proxy or a host that does not route /.well-known): not a JSON error.
  const jwks = (await res.json().catch(() => null)) as JSONWebKeySet | null;
  if (!Array.isArray(jwks?.keys)) throw unread('the answer is not a JWKS');
  return jwks;
}

const RADIO = 'size-4 shrink-0 accent-teal-700 dark:accent-teal-400';

/**
 * Two options, each with its radio: this server's keys, or a JWKS file, whose picker shows under it once it is
 * chosen (and asks for the file).
 */
function KeysChoice({ keys, onChange }: { keys: Keys; onChange: (keys: Keys) => void }) {
  const id = useId();
  const [error, setError] = useState('');
  const pick = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    try {
      const jwks = JSON.parse(await file.text()) as JSONWebKeySet;
      if (!Array.isArray(jwks.keys)) throw new Error('no keys');
      setError('');
      onChange({ from: 'file', file: { jwks, name: file.name } });
    } catch {
      // The picker shows no file rather than one that is not used: the keys stay as they were.
      input.value = '';
      setError(`${file.name} is not a JWKS (a JSON file with "keys").`);
    }
  };
  const fileChosen = keys.from === 'file';
  return (
    <fieldset className="space-y-3">
      <legend className="mb-2 text-sm font-semibold">Check the signature against</legend>
      <label className="flex items-start gap-2 text-sm">
        <input
          type="radio"
          name={`${id}-keys`}
          className={`mt-0.5 ${RADIO}`}
          checked={keys.from === 'server'}
          onChange={() => onChange({ ...keys, from: 'server' })}
        />
        <span className="min-w-0">
          This server’s keys (<code className="break-all font-mono">{EVIDENCE_KEYS_PATH}</code>)
        </span>
      </label>
      <div className="space-y-2">
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`${id}-keys`}
            className={RADIO}
            checked={fileChosen}
            aria-describedby={fileChosen ? `${id}-jwks-state` : undefined}
            onChange={() => onChange({ ...keys, from: 'file' })}
          />
          A JWKS file
        </label>
        {/* Its picker only once the option is chosen: beside this server's keys it was a second file picker above
            the packet's, and a packet chosen there was "not a JWKS". */}
        <div className="space-y-1 pl-6" hidden={!fileChosen}>
          <input
            type="file"
            aria-label="Choose a JWKS file"
            aria-describedby={`${id}-jwks-state`}
            accept=".json,application/json"
            className={FILE_INPUT}
            onChange={(e) => void pick(e.currentTarget)}
          />
          <p id={`${id}-jwks-state`} className="text-sm text-slate-600 dark:text-slate-400">
            <JwksState keys={keys} />
          </p>
        </div>
      </div>
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

/** Which JWKS file is read, or what to choose: said under the picker, and by both controls. */
function JwksState({ keys }: { keys: Keys }) {
  if (!keys.file)
    return keys.from === 'file'
      ? 'Choose the JWKS file (.json) with the keys to check against.'
      : 'A .json file with "keys", from whoever signed the packet.';
  const count = keys.file.jwks.keys.length;
  const read = `${keys.file.name} (${count} ${count === 1 ? 'key' : 'keys'})`;
  return keys.from === 'file' ? `Checking against ${read}.` : `${read}.`;
}

function PacketPicker({ onPick }: { onPick: (file: File) => void }) {
  const [over, setOver] = useState(false);
  const drop = (e: DragEvent<HTMLLabelElement>) => {
    e.preventDefault();
    setOver(false);
    const file = e.dataTransfer.files[0];
    if (file) onPick(file);
  };
  return (
    <label
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
      className={`flex flex-col gap-3 rounded-lg border-2 border-dashed p-4 text-sm sm:p-6 ${over ? 'border-teal-600 bg-teal-50 dark:bg-teal-950' : 'border-slate-300 dark:border-slate-700'}`}
    >
      <span className="font-semibold">Evidence packet (drop it here, or choose it)</span>
      <input
        type="file"
        accept=".zip,application/zip"
        className={FILE_INPUT}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) onPick(file);
        }}
      />
    </label>
  );
}

function Outcome({ check }: { check: Check }) {
  if (check.kind === 'idle') return <p role="status" />;
  if (check.kind === 'checking') return <p role="status">Checking {check.name}…</p>;
  if (check.kind === 'failed')
    return (
      <p role="alert" className="text-red-700 dark:text-red-300">
        {check.text}
      </p>
    );
  const { verdict } = check;
  return (
    <div
      role="status"
      className={`rounded-lg border p-4 ${verdict.ok ? 'border-teal-600 text-teal-900 dark:text-teal-200' : 'border-red-600 text-red-800 dark:text-red-200'}`}
    >
      <p className="font-semibold">{verdict.summary}</p>
      {verdict.ok && verdict.manifest ? (
        <p className="mt-1 text-sm">
          {check.name}: review “{verdict.manifest.review.name}”, {verdict.manifest.review.rows} rows, account{' '}
          {verdict.manifest.review.account.name}. {signOffLine(verdict.manifest.signOff)}
        </p>
      ) : null}
    </div>
  );
}
