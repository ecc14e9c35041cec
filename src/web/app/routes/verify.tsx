import type { JSONWebKeySet } from 'jose';
import { type DragEvent, useEffect, useState } from 'react';
import { type PacketVerdict, signOffLine, verifyPacket } from '../../../evidence-verify/packet.ts';
import { PageShell, SiteHeader } from '../layouts.tsx';

/** This server's evidence keys (src/bff/evidence/keys-route.ts), public, no sign-in. */
export const EVIDENCE_KEYS_PATH = '/.well-known/proplens-evidence-keys.json';

type Keys = { from: 'server' } | { from: 'file'; jwks: JSONWebKeySet; name: string };
type Check =
  | { kind: 'idle' }
  | { kind: 'checking'; name: string }
  | { kind: 'done'; name: string; verdict: PacketVerdict }
  | { kind: 'failed'; text: string };

/**
 * /verify, open to anyone: checks an evidence packet in this browser (src/evidence-verify/packet.ts: the hashes
 * and the EdDSA signature with WebCrypto) against this server's published keys or a JWKS file the reader picks.
 * The packet is read from the disk and never sent anywhere; only the keys are fetched, from this server.
 */
export function VerifyRoute() {
  const [keys, setKeys] = useState<Keys>({ from: 'server' });
  const [check, setCheck] = useState<Check>({ kind: 'idle' });
  useEffect(() => {
    document.title = 'Verify evidence · PropLens';
  }, []);

  const verify = async (file: File) => {
    setCheck({ kind: 'checking', name: file.name });
    try {
      const jwks = keys.from === 'file' ? keys.jwks : await serverKeys();
      const verdict = await verifyPacket(new Uint8Array(await file.arrayBuffer()), jwks);
      setCheck({ kind: 'done', name: file.name, verdict });
    } catch (err) {
      setCheck({ kind: 'failed', text: (err as Error).message });
    }
  };

  return (
    <PageShell header={<SiteHeader />}>
      <div className="max-w-2xl space-y-5">
        <div>
          <h1 className="text-2xl font-bold tracking-tight">Verify an evidence packet</h1>
          <p className="mt-2 text-slate-700 dark:text-slate-300">
            Choose a <code className="font-mono text-sm">.evidence.zip</code> exported from PropLens. It is
            checked here, in your browser, and never uploaded: every file against the hashes in its manifest,
            and the manifest’s signature against the keys below.
          </p>
        </div>
        <KeysChoice keys={keys} onChange={setKeys} />
        <PacketPicker onPick={verify} />
        <Outcome check={check} />
      </div>
    </PageShell>
  );
}

async function serverKeys(): Promise<JSONWebKeySet> {
  const res = await fetch(EVIDENCE_KEYS_PATH, { credentials: 'omit' });
  if (!res.ok)
    throw new Error(`This server’s keys could not be read (${res.status}). Choose a JWKS file instead.`);
  return (await res.json()) as JSONWebKeySet;
}

function KeysChoice({ keys, onChange }: { keys: Keys; onChange: (keys: Keys) => void }) {
  const [error, setError] = useState('');
  const pick = async (file: File | undefined) => {
    if (!file) return;
    try {
      const jwks = JSON.parse(await file.text()) as JSONWebKeySet;
      if (!Array.isArray(jwks.keys)) throw new Error('no keys');
      setError('');
      onChange({ from: 'file', jwks, name: file.name });
    } catch {
      setError(`${file.name} is not a JWKS (a JSON file with "keys").`);
    }
  };
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-semibold">Check the signature against</legend>
      <label className="flex items-center gap-2 text-sm">
        <input type="radio" checked={keys.from === 'server'} onChange={() => onChange({ from: 'server' })} />
        This server’s keys (<code className="font-mono">{EVIDENCE_KEYS_PATH}</code>)
      </label>
      <label className="flex flex-wrap items-center gap-2 text-sm">
        <span>A JWKS file{keys.from === 'file' ? `: ${keys.name}` : ''}</span>
        <input type="file" accept=".json,application/json" onChange={(e) => void pick(e.target.files?.[0])} />
      </label>
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
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
      className={`flex flex-col gap-2 rounded-lg border-2 border-dashed p-6 text-sm ${over ? 'border-teal-600 bg-teal-50 dark:bg-teal-950' : 'border-slate-300 dark:border-slate-700'}`}
    >
      <span className="font-semibold">Evidence packet (drop it here, or choose it)</span>
      <input
        type="file"
        accept=".zip,application/zip"
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
