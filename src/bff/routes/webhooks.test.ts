import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiErrorBody,
  type DemoKey,
  WebhookDeliveriesResponse,
  WebhookEndpointsResponse,
  WebhookSecretResponse,
  WebhookTestResponse,
} from '../../contract/index.ts';
import type { AppEnv } from '../context.ts';
import { errorResponse, toApiError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { csrf } from '../middleware/csrf.ts';
import { reviewDatabase } from '../test-support/review-database.ts';
import { createWebhooks, type SecretKeeping, WebhookSecrets } from '../webhooks/index.ts';
import { startReceiver } from '../webhooks/test-support/receiver.ts';
import { webhookRoutes } from './webhooks.ts';

/*
 * /api/webhooks as the browser sends it. The app as shipped (graph.ts, WEBHOOK_ALLOW_PRIVATE_NETWORKS unset)
 * refuses private receivers at save time; the end-to-end cases run the same routes with private networks allowed,
 * against a receiver on 127.0.0.1 that checks each signature with the standardwebhooks library.
 */

const db = reviewDatabase('webhook-routes');
const SECRETS = new WebhookSecrets('a server secret of at least thirty-two characters');
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** The shipped harness for sign-in and sessions; the webhook routes on it with private receivers allowed. */
async function signedIn(
  key = 'pi_demo_professional',
  demoKeys: DemoKey[] | null = null,
  { secrets = SECRETS as SecretKeeping, logger = createLogger('silent') } = {},
) {
  const h = db.make(demoKeys ? { demoKeys } : {});
  expect((await h.signIn(key)).status).toBe(200);
  const webhooks = createWebhooks({ database: db.database, logger, allowPrivate: true, secrets });
  const app = new Hono<AppEnv>();
  app.use('*', csrf);
  app.route('/api/webhooks', webhookRoutes({ webhooks, sessions: h.sessions, demoKeys }));
  app.onError((err, c) => errorResponse(c, toApiError(err)));
  const call = (
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    app.request(path, {
      method: init.method ?? 'GET',
      headers: {
        'X-Requested-With': 'proplens',
        'Content-Type': 'application/json',
        Cookie: h.cookie,
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  return { h, webhooks, call };
}
const refusal = async (res: Response) => ({
  status: res.status,
  ...ApiErrorBody.parse(await res.json()).error,
});

describe('/api/webhooks as shipped', () => {
  it('refuses a receiver on this machine or a private network at save time, in words', async () => {
    const h = db.make();
    await h.signIn();
    for (const url of [
      'http://127.0.0.1:9999/hook',
      'https://[::1]/',
      'http://169.254.169.254/',
      'http://2130706433/',
    ]) {
      const res = await h.call('/api/webhooks', {
        method: 'POST',
        body: { url, events: ['review.completed'] },
      });
      const error = await refusal(res);
      expect(error, url).toMatchObject({ status: 400, code: 'bad_request' });
      expect(error.message, url).toMatch(/only to public internet addresses/);
    }
    const list = WebhookEndpointsResponse.parse(await (await h.call('/api/webhooks')).json());
    expect(list.endpoints).toEqual([]);
  });

  it('answers only a signed-in app: 401 without a session, 403 without the CSRF header', async () => {
    const h = db.make();
    expect((await h.call('/api/webhooks')).status).toBe(401);
    await h.signIn();
    const forged = await h.call('/api/webhooks', {
      method: 'POST',
      body: { url: 'https://hooks.example.com/', events: ['review.completed'] },
      headers: { 'X-Requested-With': '' },
    });
    expect(forged.status).toBe(403);
  });
});

describe('/api/webhooks with a receiver on 127.0.0.1', () => {
  it('adds an endpoint, shows its secret once, sends a signed test event and logs it; resend keeps the id', async () => {
    const { webhooks, call } = await signedIn();
    const made = await call('/api/webhooks', {
      method: 'POST',
      body: { url: receiver.url('/routes'), events: ['review.completed', 'review.changed'] },
    });
    expect(made.status).toBe(201);
    const { endpoint, secret } = WebhookSecretResponse.parse(await made.json());
    expect(secret).toMatch(/^whsec_/);
    const listed = await (await call('/api/webhooks')).text();
    expect(listed).not.toContain(secret);
    expect(WebhookEndpointsResponse.parse(JSON.parse(listed)).endpoints).toEqual([endpoint]);

    const test = await call(`/api/webhooks/${endpoint.id}/test`, { method: 'POST' });
    expect(test.status).toBe(202);
    const { id } = WebhookTestResponse.parse(await test.json());
    expect(await webhooks.dispatcher.tick()).toBe(1);
    const got = receiver.received.filter((r) => r.headers['webhook-id'] === id);
    expect(got).toHaveLength(1);
    expect(new Webhook(secret).verify(got[0]?.body ?? '', got[0]?.headers ?? {})).toMatchObject({
      type: 'webhook.test',
      data: { endpointId: endpoint.id },
    });

    const log = WebhookDeliveriesResponse.parse(
      await (await call(`/api/webhooks/${endpoint.id}/deliveries`)).json(),
    );
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]).toMatchObject({ id, type: 'webhook.test', state: 'delivered' });
    expect(log.deliveries[0]?.attempts).toMatchObject([{ attempt: 1, statusCode: 204, error: null }]);

    const resend = await call(`/api/webhooks/${endpoint.id}/deliveries/${id}/resend`, { method: 'POST' });
    expect(resend.status).toBe(202);
    expect(await webhooks.dispatcher.tick()).toBe(1);
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(2);
    const again = WebhookDeliveriesResponse.parse(
      await (await call(`/api/webhooks/${endpoint.id}/deliveries`)).json(),
    );
    expect(again.deliveries[0]?.attempts.map((a) => a.attempt)).toEqual([2, 1]);
  });

  it('turns an endpoint off and on, rotates its secret, deletes it with its log', async () => {
    const { webhooks, call } = await signedIn();
    const made = WebhookSecretResponse.parse(
      await (
        await call('/api/webhooks', {
          method: 'POST',
          body: { url: receiver.url('/rot'), events: ['monitor.paused'] },
        })
      ).json(),
    );
    const id = made.endpoint.id;
    const off = await call(`/api/webhooks/${id}`, { method: 'PATCH', body: { enabled: false } });
    expect(await off.json()).toMatchObject({ enabled: false, events: ['monitor.paused'] });
    expect(await refusal(await call(`/api/webhooks/${id}/test`, { method: 'POST' }))).toMatchObject({
      status: 409,
      message: expect.stringMatching(/turned off/),
    });
    await call(`/api/webhooks/${id}`, {
      method: 'PATCH',
      body: { enabled: true, events: ['review.changed'] },
    });
    const rotated = WebhookSecretResponse.parse(
      await (await call(`/api/webhooks/${id}/rotate-secret`, { method: 'POST' })).json(),
    );
    expect(rotated.secret).not.toBe(made.secret);
    const { id: eventId } = WebhookTestResponse.parse(
      await (await call(`/api/webhooks/${id}/test`, { method: 'POST' })).json(),
    );
    await webhooks.dispatcher.tick();
    const got = receiver.received.find((r) => r.headers['webhook-id'] === eventId);
    expect(() => new Webhook(made.secret).verify(got?.body ?? '', got?.headers ?? {})).toThrow();
    expect(new Webhook(rotated.secret).verify(got?.body ?? '', got?.headers ?? {})).toBeTruthy();
    expect((await call(`/api/webhooks/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`/api/webhooks/${id}/deliveries`)).status).toBe(404);
    const left = await db.database.db
      .selectFrom('webhook_outbox')
      .select('id')
      .where('endpoint_id', '=', id)
      .execute();
    expect(left).toEqual([]);
  });

  it('shows a secret only in the answer that made it: in no byte of the database files, no log line', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) });
    const { webhooks, call } = await signedIn('pi_demo_professional', null, { logger });
    const made = WebhookSecretResponse.parse(
      await (
        await call('/api/webhooks', {
          method: 'POST',
          body: { url: receiver.url('/rest'), events: ['review.completed'] },
        })
      ).json(),
    );
    const id = made.endpoint.id;
    const rotated = WebhookSecretResponse.parse(
      await (await call(`/api/webhooks/${id}/rotate-secret`, { method: 'POST' })).json(),
    );
    const { id: eventId } = WebhookTestResponse.parse(
      await (await call(`/api/webhooks/${id}/test`, { method: 'POST' })).json(),
    );
    await webhooks.dispatcher.tick();
    const got = receiver.received.find((r) => r.headers['webhook-id'] === eventId);
    expect(new Webhook(rotated.secret).verify(got?.body ?? '', got?.headers ?? {})).toBeTruthy();
    const answers = [
      await (await call('/api/webhooks')).text(),
      await (await call(`/api/webhooks/${id}/deliveries`)).text(),
    ].join('');
    // The database's files as they are on disk (the main file, its write-ahead log), and everything logged.
    const files = readdirSync(db.dir).map((f) => readFileSync(join(db.dir, f)).toString('latin1'));
    expect(files.join('').length).toBeGreaterThan(0);
    for (const { secret } of [made, rotated]) {
      const key = secret.slice('whsec_'.length);
      for (const [where, text] of [
        ['the database files', files.join('')],
        ['the log', lines.join('')],
        ['the answers', answers],
      ] as const)
        expect(text.includes(key), `secret in ${where}`).toBe(false);
    }
  });

  it('adds no endpoint, in words, where the server has no secret to seal its secret with', async () => {
    const why = 'This server keeps no keys: its administrator has not set KEY_ENCRYPTION_SECRET.';
    const { call } = await signedIn('pi_demo_professional', null, { secrets: { unavailable: why } });
    const res = await call('/api/webhooks', {
      method: 'POST',
      body: { url: receiver.url('/none'), events: ['review.completed'] },
    });
    expect(await refusal(res)).toMatchObject({
      status: 409,
      message: expect.stringMatching(/KEY_ENCRYPTION_SECRET.*no endpoint can be added/),
    });
  });

  it('keeps an account’s endpoints from every other account', async () => {
    const mine = await signedIn('pi_demo_professional');
    const { endpoint } = WebhookSecretResponse.parse(
      await (
        await mine.call('/api/webhooks', {
          method: 'POST',
          body: { url: receiver.url('/own'), events: ['review.completed'] },
        })
      ).json(),
    );
    const theirs = await signedIn('pi_demo_enterprise');
    const list = WebhookEndpointsResponse.parse(await (await theirs.call('/api/webhooks')).json());
    expect(list.endpoints.map((e) => e.id)).not.toContain(endpoint.id);
    for (const [method, path] of [
      ['PATCH', `/api/webhooks/${endpoint.id}`],
      ['DELETE', `/api/webhooks/${endpoint.id}`],
      ['POST', `/api/webhooks/${endpoint.id}/test`],
      ['POST', `/api/webhooks/${endpoint.id}/rotate-secret`],
      ['GET', `/api/webhooks/${endpoint.id}/deliveries`],
    ] as const) {
      const res = await theirs.call(path, {
        method,
        ...(method === 'PATCH' ? { body: { enabled: false } } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });

  it('refuses a bad body in words: no events, a URL that is not http(s), a bad page cursor', async () => {
    const { call } = await signedIn();
    expect(
      await refusal(
        await call('/api/webhooks', { method: 'POST', body: { url: receiver.url(), events: [] } }),
      ),
    ).toMatchObject({
      status: 400,
      message: 'Choose at least one event.',
    });
    expect(
      await refusal(
        await call('/api/webhooks', {
          method: 'POST',
          body: { url: 'ftp://x.example/', events: ['review.completed'] },
        }),
      ),
    ).toMatchObject({ status: 400, message: expect.stringMatching(/https:\/\//) });
    const { endpoint } = WebhookSecretResponse.parse(
      await (
        await call('/api/webhooks', {
          method: 'POST',
          body: { url: receiver.url('/cur'), events: ['review.completed'] },
        })
      ).json(),
    );
    expect((await call(`/api/webhooks/${endpoint.id}/deliveries?before=nonsense`)).status).toBe(400);
  });

  it('gives each public demo visitor endpoints of their own: strangers share the demo account', async () => {
    const demo: DemoKey[] = [{ key: 'pi_demo_professional', plan: 'professional', label: 'Professional' }];
    const first = await signedIn('pi_demo_professional', demo);
    const second = await signedIn('pi_demo_professional', demo);
    const { endpoint } = WebhookSecretResponse.parse(
      await (
        await first.call('/api/webhooks', {
          method: 'POST',
          body: { url: receiver.url('/visitor'), events: ['review.completed'] },
        })
      ).json(),
    );
    const theirs = WebhookEndpointsResponse.parse(await (await second.call('/api/webhooks')).json());
    expect(theirs.endpoints).toEqual([]);
    expect((await second.call(`/api/webhooks/${endpoint.id}`, { method: 'DELETE' })).status).toBe(404);
    const mine = WebhookEndpointsResponse.parse(await (await first.call('/api/webhooks')).json());
    expect(mine.endpoints.map((e) => e.id)).toEqual([endpoint.id]);
  });

  it('lets a public demo visitor send webhooks only to a receiver on the demo server: no open relay', async () => {
    const demo: DemoKey[] = [{ key: 'pi_demo_professional', plan: 'professional', label: 'Professional' }];
    const visitor = await signedIn('pi_demo_professional', demo);
    for (const url of [
      'https://hooks.example.com/anyone',
      'http://93.184.216.34:8080/x',
      `http://localhost:${receiver.port}/by-name`,
      `http://10.0.0.5:${receiver.port}/lan`,
    ]) {
      const res = await visitor.call('/api/webhooks', {
        method: 'POST',
        body: { url, events: ['review.completed'] },
      });
      expect([url, res.status]).toEqual([url, 403]);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /On the public demo, webhooks go only to a receiver on the demo server itself/,
      );
    }
    for (const url of [receiver.url('/demo-ok'), `http://[::1]:${receiver.port}/v6`]) {
      const res = await visitor.call('/api/webhooks', {
        method: 'POST',
        body: { url, events: ['review.completed'] },
      });
      expect([url, res.status]).toEqual([url, 201]);
    }
    // The demo key without the demo configured is an ordinary account's key: any public receiver.
    const plain = await signedIn('pi_demo_professional');
    const res = await plain.call('/api/webhooks', {
      method: 'POST',
      body: { url: 'https://hooks.example.com/anyone', events: ['review.completed'] },
    });
    expect(res.status).not.toBe(403);
  });
});
