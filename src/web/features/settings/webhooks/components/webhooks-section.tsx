import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { WebhookSecretResponse } from '../../../../../contract/index.ts';
import { Alert } from '../../../../components/ui/alert.tsx';
import { webhooksQueryOptions } from '../api/webhooks.ts';
import { AddEndpointForm } from './add-endpoint-form.tsx';
import { EndpointItem } from './endpoint-item.tsx';
import { SecretOnce } from './secret-once.tsx';

/** Settings' "Webhook endpoints": where PropLens posts the account's events, signed, retried for 24 hours. */
export function WebhooksSection({ accountId, demo = false }: { accountId: string; demo?: boolean }) {
  const id = useId();
  const list = useQuery(webhooksQueryOptions(accountId));
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const shown = (made: WebhookSecretResponse) => setSecret({ url: made.endpoint.url, secret: made.secret });
  return (
    <section
      aria-labelledby={`${id}-heading`}
      className="space-y-4 rounded-xl border border-slate-200 p-4 dark:border-slate-800"
    >
      <div>
        <h2 id={`${id}-heading`} className="text-lg font-semibold">
          Webhook endpoints
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          PropLens posts the events you choose to your endpoints, signed per the Standard Webhooks
          specification, and tries again for 24 hours when an endpoint does not answer 2xx.{' '}
          {demo
            ? 'On the public demo, whose keys are public, PropLens posts to no address on the internet: webhooks go only to a receiver on the demo server itself (http://127.0.0.1:<port>/…), and only where its operator allows private networks. Sign in with your own API key to send webhooks to your own receiver.'
            : 'Endpoints must be on the public internet (https://, or http:// to a public address).'}
        </p>
      </div>
      <AddEndpointForm accountId={accountId} onAdded={shown} />
      {secret ? <SecretOnce {...secret} onDone={() => setSecret(null)} /> : null}
      {list.isError ? <Alert tone="error" title="The webhook endpoints could not be loaded." /> : null}
      {list.data?.endpoints.length === 0 ? <p className="text-sm">No endpoints yet.</p> : null}
      <ul aria-label="Webhook endpoints" className="space-y-3">
        {list.data?.endpoints.map((endpoint) => (
          <EndpointItem key={endpoint.id} accountId={accountId} endpoint={endpoint} onSecret={shown} />
        ))}
      </ul>
    </section>
  );
}
