import { useState } from 'react';
import { Alert } from '../../../../components/ui/alert.tsx';
import { Button } from '../../../../components/ui/button.tsx';

/** An endpoint's signing secret, shown this once (PropLens never shows it again): copy it, then dismiss. */
export function SecretOnce({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setCopied('yes'),
      () => setCopied('no'),
    );
  return (
    <Alert tone="warning" title="Copy the signing secret now: it is shown only this once">
      <p>
        For {url}. Your receiver verifies each message’s <code>webhook-signature</code> with it (Standard
        Webhooks). PropLens will not show it again; if it is lost, rotate the secret.
      </p>
      <p>
        Signing secret:{' '}
        <code className="break-all rounded bg-white/70 px-1 py-0.5 dark:bg-slate-900">{secret}</code>
      </p>
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" onClick={copy}>
          Copy secret
        </Button>
        <Button variant="ghost" onClick={onDone}>
          I have copied it
        </Button>
      </div>
      <p role="status">
        {copied === 'yes'
          ? 'Copied.'
          : copied === 'no'
            ? 'Could not copy: select the secret and copy it.'
            : ''}
      </p>
    </Alert>
  );
}
