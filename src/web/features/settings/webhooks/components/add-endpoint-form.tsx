import { type FormEvent, useId, useState } from 'react';
import {
  MAX_WEBHOOK_URL,
  WebhookEventType,
  type WebhookSecretResponse,
} from '../../../../../contract/index.ts';
import { Button } from '../../../../components/ui/button.tsx';
import { ApiRequestError } from '../../../../lib/api-client.ts';
import { useAddWebhook } from '../api/webhooks.ts';

/** What each event means, as the form offers it. */
export const EVENT_LABELS: Record<WebhookEventType, string> = {
  'review.completed': 'A review finished',
  'review.changed': 'A monitored review found changes worth an alert',
  'monitor.paused': 'Monitoring paused (stored key refused, monthly cap reached)',
};

const problem = (err: unknown, fallback: string) => (err instanceof ApiRequestError ? err.message : fallback);

/** "Webhook URL" and the events: *Add endpoint* answers the endpoint's secret, which the section shows once. */
export function AddEndpointForm({
  accountId,
  onAdded,
}: {
  accountId: string;
  onAdded: (made: WebhookSecretResponse) => void;
}) {
  const id = useId();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>([...WebhookEventType.options]);
  const add = useAddWebhook(accountId);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(
      { url: url.trim(), events },
      {
        onSuccess: (made) => {
          setUrl('');
          onAdded(made);
        },
      },
    );
  };
  const toggle = (type: WebhookEventType, on: boolean) =>
    setEvents((all) => (on ? [...all, type] : all.filter((t) => t !== type)));
  return (
    <form onSubmit={submit} className="space-y-3">
      <div className="space-y-1">
        <label htmlFor={`${id}-url`} className="block text-sm font-semibold">
          Webhook URL
        </label>
        <input
          id={`${id}-url`}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          maxLength={MAX_WEBHOOK_URL}
          inputMode="url"
          autoComplete="off"
          placeholder="https://hooks.example.com/proplens"
          className="min-h-11 w-full rounded-md border border-slate-400 bg-white px-3 text-sm shadow-sm dark:border-slate-600 dark:bg-slate-900"
        />
      </div>
      <fieldset className="space-y-1">
        <legend className="text-sm font-semibold">Events</legend>
        {WebhookEventType.options.map((type) => (
          <label key={type} className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={events.includes(type)}
              onChange={(e) => toggle(type, e.target.checked)}
            />
            {EVENT_LABELS[type]} <code className="text-xs text-slate-600 dark:text-slate-400">{type}</code>
          </label>
        ))}
      </fieldset>
      <Button type="submit" disabled={add.isPending || url.trim() === '' || events.length === 0}>
        {add.isPending ? 'Adding…' : 'Add endpoint'}
      </Button>
      {add.isError ? (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
          {problem(add.error, 'The endpoint could not be added. Try again.')}
        </p>
      ) : null}
    </form>
  );
}
