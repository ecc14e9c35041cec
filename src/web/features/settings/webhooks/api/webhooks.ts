import { infiniteQueryOptions, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import {
  type CreateWebhookRequest,
  type UpdateWebhookRequest,
  WebhookDeliveriesResponse,
  WebhookEndpoint,
  WebhookEndpointsResponse,
  WebhookSecretResponse,
  WebhookTestResponse,
} from '../../../../../contract/index.ts';
import { apiFetch } from '../../../../lib/api-client.ts';

/** The account's webhook endpoints and each one's delivery log (/api/webhooks). */
export const webhookKeys = {
  all: (accountId: string) => ['webhooks', accountId] as const,
  list: (accountId: string) => ['webhooks', accountId, 'list'] as const,
  deliveries: (accountId: string, endpointId: string) =>
    ['webhooks', accountId, 'deliveries', endpointId] as const,
};

export const webhooksQueryOptions = (accountId: string) =>
  queryOptions({
    queryKey: webhookKeys.list(accountId),
    queryFn: ({ signal }) => apiFetch('/api/webhooks', WebhookEndpointsResponse, { signal }),
  });

/** An endpoint's log a page at a time, newest first, looked at again every few seconds while an event is owed. */
export const deliveriesQueryOptions = (accountId: string, endpointId: string) =>
  infiniteQueryOptions({
    queryKey: webhookKeys.deliveries(accountId, endpointId),
    queryFn: ({ signal, pageParam }) =>
      apiFetch(
        `/api/webhooks/${encodeURIComponent(endpointId)}/deliveries${pageParam ? `?before=${encodeURIComponent(pageParam)}` : ''}`,
        WebhookDeliveriesResponse,
        { signal },
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    refetchInterval: (query) =>
      query.state.data?.pages.some((p) =>
        p.deliveries.some((d) => d.state === 'pending' || d.state === 'sending'),
      )
        ? 3_000
        : false,
  });

const path = (id: string, rest = '') => `/api/webhooks/${encodeURIComponent(id)}${rest}`;

/** Every mutation refreshes the account's webhooks (list and logs) when it is done. */
function useWebhookMutation<I, O>(accountId: string, fn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: webhookKeys.all(accountId) }),
  });
}

export const useAddWebhook = (accountId: string) =>
  useWebhookMutation(accountId, (body: CreateWebhookRequest) =>
    apiFetch('/api/webhooks', WebhookSecretResponse, { method: 'POST', body }),
  );

export const useUpdateWebhook = (accountId: string) =>
  useWebhookMutation(accountId, ({ id, ...body }: UpdateWebhookRequest & { id: string }) =>
    apiFetch(path(id), WebhookEndpoint, { method: 'PATCH', body }),
  );

export const useDeleteWebhook = (accountId: string) =>
  useWebhookMutation(accountId, (id: string) => apiFetch(path(id), null, { method: 'DELETE' }));

export const useRotateSecret = (accountId: string) =>
  useWebhookMutation(accountId, (id: string) =>
    apiFetch(path(id, '/rotate-secret'), WebhookSecretResponse, { method: 'POST' }),
  );

export const useSendTestEvent = (accountId: string) =>
  useWebhookMutation(accountId, (id: string) =>
    apiFetch(path(id, '/test'), WebhookTestResponse, { method: 'POST' }),
  );

export const useResend = (accountId: string) =>
  useWebhookMutation(accountId, ({ endpointId, eventId }: { endpointId: string; eventId: string }) =>
    apiFetch(path(endpointId, `/deliveries/${encodeURIComponent(eventId)}/resend`), WebhookTestResponse, {
      method: 'POST',
    }),
  );
