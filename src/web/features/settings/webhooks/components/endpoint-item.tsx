import { useId, useState } from 'react';
import type { WebhookEndpoint, WebhookSecretResponse } from '../../../../../contract/index.ts';
import { Button } from '../../../../components/ui/button.tsx';
import { ApiRequestError } from '../../../../lib/api-client.ts';
import { useDeleteWebhook, useRotateSecret, useSendTestEvent, useUpdateWebhook } from '../api/webhooks.ts';
import { EVENT_LABELS } from './add-endpoint-form.tsx';
import { DeliveryLog } from './delivery-log.tsx';

const failed = (err: unknown) =>
  err instanceof ApiRequestError ? err.message : 'That did not work. Try again.';

/** One endpoint: its URL and events, an enabled switch, *Send test event*, the secret's rotation, its log. */
export function EndpointItem({
  accountId,
  endpoint,
  onSecret,
}: {
  accountId: string;
  endpoint: WebhookEndpoint;
  onSecret: (made: WebhookSecretResponse) => void;
}) {
  const id = useId();
  const [showLog, setShowLog] = useState(false);
  const update = useUpdateWebhook(accountId);
  const test = useSendTestEvent(accountId);
  const rotate = useRotateSecret(accountId);
  const remove = useDeleteWebhook(accountId);
  const error = [update, test, rotate, remove].find((m) => m.isError)?.error;
  return (
    <li className="space-y-2 rounded-lg border border-slate-200 p-3 dark:border-slate-800">
      <p id={`${id}-url`} className="break-all font-mono text-sm">
        {endpoint.url}
      </p>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        {endpoint.events.map((e) => EVENT_LABELS[e]).join('; ')}
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-2 text-sm font-semibold">
          <input
            type="checkbox"
            role="switch"
            aria-checked={endpoint.enabled}
            checked={endpoint.enabled}
            disabled={update.isPending}
            onChange={(e) => update.mutate({ id: endpoint.id, enabled: e.target.checked })}
            aria-describedby={`${id}-url`}
          />
          Enabled
        </label>
        <Button
          variant="secondary"
          disabled={!endpoint.enabled || test.isPending}
          onClick={() => test.mutate(endpoint.id)}
        >
          Send test event
        </Button>
        <Button variant="secondary" onClick={() => rotate.mutate(endpoint.id, { onSuccess: onSecret })}>
          Rotate secret
        </Button>
        <Button variant="ghost" onClick={() => remove.mutate(endpoint.id)}>
          Remove endpoint
        </Button>
        <Button variant="ghost" aria-expanded={showLog} onClick={() => setShowLog((s) => !s)}>
          {showLog ? 'Hide delivery log' : 'Delivery log'}
        </Button>
      </div>
      <p role="status" className="text-sm">
        {test.isSuccess
          ? `A webhook.test event is on its way (id ${test.data.id}): see the delivery log.`
          : ''}
      </p>
      {error ? (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
          {failed(error)}
        </p>
      ) : null}
      {showLog || test.isSuccess ? <DeliveryLog accountId={accountId} endpointId={endpoint.id} /> : null}
    </li>
  );
}
