import { useInfiniteQuery } from '@tanstack/react-query';
import type { WebhookDelivery } from '../../../../../contract/index.ts';
import { Button } from '../../../../components/ui/button.tsx';
import { ApiRequestError } from '../../../../lib/api-client.ts';
import { formatDateTime } from '../../../../lib/format.ts';
import { deliveriesQueryOptions, useResend } from '../api/webhooks.ts';

const STATE_WORDS: Record<WebhookDelivery['state'], string> = {
  pending: 'Waiting to be sent',
  sending: 'Sending',
  delivered: 'Delivered',
  failed: 'Failed: gave up',
};

/** What the latest attempt came to, in words: the receiver's status, or why there was none. */
function lastOutcome(d: WebhookDelivery): string {
  const last = d.attempts[0];
  if (!last) return d.state === 'pending' ? 'Not tried yet' : '';
  return last.error ?? `HTTP ${last.statusCode}`;
}

/** An endpoint's delivery log, newest first: each event, its state, its latest attempt, and *Resend*. */
export function DeliveryLog({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const log = useInfiniteQuery(deliveriesQueryOptions(accountId, endpointId));
  const resend = useResend(accountId);
  if (log.isPending) return <p className="text-sm">Loading the delivery log…</p>;
  if (log.isError)
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        The delivery log could not be loaded.
      </p>
    );
  const deliveries = log.data.pages.flatMap((p) => p.deliveries);
  if (deliveries.length === 0) return <p className="text-sm">Nothing sent to this endpoint yet.</p>;
  return (
    <div className="space-y-2">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Delivery log</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempt</th>
            <th scope="col">Time</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id} className="border-t border-slate-200 align-top dark:border-slate-800">
              <td>
                {d.type}
                <div className="text-xs text-slate-600 dark:text-slate-400">{d.id}</div>
              </td>
              <td>
                {STATE_WORDS[d.state]}
                <div className="text-xs">{lastOutcome(d)}</div>
              </td>
              <td>{d.attempts[0]?.attempt ?? 0}</td>
              <td>{formatDateTime(d.attempts[0]?.at ?? d.createdAt)}</td>
              <td>
                <Button
                  variant="secondary"
                  disabled={d.state === 'sending' || d.state === 'pending' || resend.isPending}
                  onClick={() => resend.mutate({ endpointId, eventId: d.id })}
                  aria-label={`Resend ${d.type} ${d.id}`}
                >
                  Resend
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {log.hasNextPage ? (
        <Button variant="ghost" disabled={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
          {log.isFetchingNextPage ? 'Loading…' : 'Older deliveries'}
        </Button>
      ) : null}
      {resend.isError ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {resend.error instanceof ApiRequestError ? resend.error.message : 'Could not resend. Try again.'}
        </p>
      ) : null}
    </div>
  );
}
