import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebhookDelivery, WebhookEndpoint } from '../../../../../contract/index.ts';
import { apiError, fakeApi, json, Route, renderRoutes } from '../../../../test/utils.tsx';
import { WebhooksSection } from '../index.ts';

afterEach(() => vi.unstubAllGlobals());

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** A fake /api/webhooks holding endpoints and each one's deliveries, as the BFF answers them. */
function fakeWebhooks() {
  const endpoints: WebhookEndpoint[] = [];
  const deliveries: WebhookDelivery[] = [];
  const api = fakeApi({
    'GET /api/webhooks': () => json({ endpoints }),
    'POST /api/webhooks': ({ body }) => {
      const { url, events } = body as { url: string; events: WebhookEndpoint['events'] };
      if (url.includes('127.0.0.1'))
        return apiError(
          400,
          'bad_request',
          'The Webhook URL leads to 127.0.0.1 (this machine itself): PropLens sends webhooks only to public internet addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows private networks).',
        );
      const endpoint = {
        id: 'ep_1',
        url,
        events,
        enabled: true,
        createdBy: '3f9a1c2e',
        createdAt: '2026-11-26T10:00:00.000Z',
      };
      endpoints.push(endpoint);
      return json({ endpoint, secret: SECRET }, 201);
    },
    'PATCH /api/webhooks/*': ({ body }) => {
      Object.assign(endpoints[0] as WebhookEndpoint, body);
      return json(endpoints[0]);
    },
    'POST /api/webhooks/ep_1/test': () => {
      deliveries.unshift({
        id: 'msg_aaaaaaaaaaaaaaaaaaaaaaaa',
        type: 'webhook.test',
        state: 'failed',
        createdAt: '2026-11-26T10:01:00.000Z',
        nextAttemptAt: null,
        deliveredAt: null,
        attempts: [
          {
            attempt: 1,
            at: '2026-11-26T10:01:01.000Z',
            statusCode: 302,
            error: 'Redirect (302) not followed: give the final URL.',
            durationMs: 12,
            response: null,
          },
        ],
      });
      return json({ id: 'msg_aaaaaaaaaaaaaaaaaaaaaaaa' }, 202);
    },
    'GET /api/webhooks/ep_1/deliveries': () => json({ deliveries, next: null }),
    'POST /api/webhooks/ep_1/deliveries/*': () => json({ id: 'msg_aaaaaaaaaaaaaaaaaaaaaaaa' }, 202),
  });
  return { api, endpoints };
}

const render = () =>
  renderRoutes(<Route path="/settings" element={<WebhooksSection accountId="acct-a" />} />, '/settings');

describe('Webhook endpoints', () => {
  it('states the rule that applies before anything is tried: the public internet, or the demo server itself', async () => {
    fakeWebhooks();
    const { unmount } = render();
    await screen.findByText('No endpoints yet.');
    expect(screen.getByText(/Endpoints must be on the public internet/)).toBeInTheDocument();
    unmount();
    renderRoutes(
      <Route path="/settings" element={<WebhooksSection accountId="acct-a" demo />} />,
      '/settings',
    );
    await screen.findByText('No endpoints yet.');
    expect(
      screen.getByText(
        /On the public demo, whose keys are public, PropLens posts to no address on the internet/,
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/Endpoints must be on the public internet/)).toBeNull();
  });

  it('says in words why a private receiver is refused, and adds nothing', async () => {
    fakeWebhooks();
    const user = userEvent.setup();
    render();
    await screen.findByText('No endpoints yet.');
    await user.type(screen.getByLabelText('Webhook URL'), 'http://127.0.0.1:8080/hook');
    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      /127.0.0.1 \(this machine itself\): PropLens sends webhooks only to public internet addresses/,
    );
    expect(screen.getByText('No endpoints yet.')).toBeInTheDocument();
  });

  it('adds an endpoint with its events, shows the secret once, sends a test event and shows its log with Resend', async () => {
    const { api } = fakeWebhooks();
    const writeText = vi.fn(async () => {});
    const user = userEvent.setup();
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    render();
    await user.type(await screen.findByLabelText('Webhook URL'), 'https://hooks.example.com/proplens');
    await user.click(screen.getByRole('checkbox', { name: /Monitoring paused/ }));
    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));

    expect(await screen.findByText(/shown only this once/)).toBeInTheDocument();
    expect(screen.getByText(SECRET)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Copy secret' }));
    expect(writeText).toHaveBeenCalledWith(SECRET);
    expect(await screen.findByText('Copied.')).toBeInTheDocument();
    const post = api.calls.find((c) => c.method === 'POST' && c.url.pathname === '/api/webhooks');
    expect(post?.body).toEqual({
      url: 'https://hooks.example.com/proplens',
      events: ['review.completed', 'review.changed'],
    });
    await user.click(screen.getByRole('button', { name: 'I have copied it' }));
    expect(screen.queryByText(SECRET)).not.toBeInTheDocument();

    const item = within(await screen.findByRole('list', { name: 'Webhook endpoints' })).getByRole('listitem');
    expect(item).toHaveTextContent('https://hooks.example.com/proplens');
    await user.click(within(item).getByRole('button', { name: 'Send test event' }));
    expect(await within(item).findByText(/A webhook.test event is on its way/)).toBeInTheDocument();
    const log = await within(item).findByRole('table', { name: 'Delivery log' });
    expect(log).toHaveTextContent('Failed: gave up');
    expect(log).toHaveTextContent('Redirect (302) not followed');
    await user.click(within(log).getByRole('button', { name: /Resend webhook.test/ }));
    await waitFor(() =>
      expect(
        api.calls.some((c) => c.url.pathname.endsWith('/deliveries/msg_aaaaaaaaaaaaaaaaaaaaaaaa/resend')),
      ).toBe(true),
    );
  });

  it('turns an endpoint off with its switch, and then offers no test event', async () => {
    const { api, endpoints } = fakeWebhooks();
    endpoints.push({
      id: 'ep_1',
      url: 'https://hooks.example.com/a',
      events: ['review.completed'],
      enabled: true,
      createdBy: '3f9a1c2e',
      createdAt: '2026-11-26T10:00:00.000Z',
    });
    const user = userEvent.setup();
    render();
    const toggle = await screen.findByRole('switch', { name: 'Enabled' });
    expect(toggle).toBeChecked();
    await user.click(toggle);
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Enabled' })).not.toBeChecked());
    expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({ enabled: false });
    expect(screen.getByRole('button', { name: 'Send test event' })).toBeDisabled();
  });

  it('pages through an endpoint’s delivery log, newest first', async () => {
    const delivery = (id: string, type: string): WebhookDelivery => ({
      id,
      type,
      state: 'delivered',
      createdAt: '2026-11-26T10:01:00.000Z',
      nextAttemptAt: null,
      deliveredAt: '2026-11-26T10:01:01.000Z',
      attempts: [
        {
          attempt: 1,
          at: '2026-11-26T10:01:01.000Z',
          statusCode: 204,
          error: null,
          durationMs: 9,
          response: null,
        },
      ],
    });
    const newer = 'msg_bbbbbbbbbbbbbbbbbbbbbbbb';
    const older = 'msg_cccccccccccccccccccccccc';
    fakeApi({
      'GET /api/webhooks': () =>
        json({
          endpoints: [
            {
              id: 'ep_1',
              url: 'https://hooks.example.com/a',
              events: ['review.completed'],
              enabled: true,
              createdBy: '3f9a1c2e',
              createdAt: '2026-11-26T10:00:00.000Z',
            },
          ],
        }),
      'GET /api/webhooks/ep_1/deliveries': ({ url }) =>
        url.searchParams.get('before') === `1.${newer}`
          ? json({ deliveries: [delivery(older, 'review.completed')], next: null })
          : json({ deliveries: [delivery(newer, 'webhook.test')], next: `1.${newer}` }),
    });
    const user = userEvent.setup();
    render();
    await user.click(await screen.findByRole('button', { name: 'Delivery log' }));
    const log = await screen.findByRole('table', { name: 'Delivery log' });
    expect(log).toHaveTextContent(newer);
    expect(log).not.toHaveTextContent(older);
    await user.click(screen.getByRole('button', { name: 'Older deliveries' }));
    await waitFor(() => expect(screen.getByRole('table', { name: 'Delivery log' })).toHaveTextContent(older));
    expect(screen.queryByRole('button', { name: 'Older deliveries' })).not.toBeInTheDocument();
  });
});
