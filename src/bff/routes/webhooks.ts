import { Hono } from 'hono';
import ipaddr from 'ipaddr.js';
import {
  CreateWebhookRequest,
  type DemoKey,
  demoKeyOf,
  MAX_WEBHOOK_ENDPOINTS,
  UpdateWebhookRequest,
  WEBHOOK_TEST_EVENT,
  type WebhookDeliveriesResponse,
  type WebhookEndpointsResponse,
  type WebhookSecretResponse,
  type WebhookTestResponse,
} from '../../contract/index.ts';
import type { AppContext, AppEnv } from '../context.ts';
import { inDatabase } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { requireSession } from '../middleware/session.ts';
import { keyFingerprint, type SessionStore } from '../stores/sessions/types.ts';
import { deliveryLog } from '../webhooks/delivery-log.ts';
import { type EndpointScope, toEndpoint, type WithSecret } from '../webhooks/endpoint-store.ts';
import { RefusedTarget, SecretsUnavailable, type Webhooks } from '../webhooks/index.ts';
import type { WebhookEndpointsTable } from '../webhooks/tables.ts';

export interface WebhookRouteDeps {
  webhooks: Webhooks;
  sessions: SessionStore;
  /** The public demo's keys: strangers share the demo account, so each visitor has endpoints of their own. */
  demoKeys: DemoKey[] | null;
}

const BODY = { maxBytes: 8 * 1024, tooLarge: 'Give a Webhook URL of at most 2,000 characters.' };
const noSuchEndpoint = () =>
  new ApiError(404, 'not_found', 'There is no such webhook endpoint in this account.');

/**
 * /api/webhooks: the account's webhook endpoints, for any key of the account (the CSRF header as every /api call).
 * GET lists them; POST adds one (its URL checked for SSRF now, and again at every attempt) and answers its secret,
 * once; PATCH turns it on or off or changes its events; DELETE removes it with its log; POST :id/rotate-secret
 * answers a new secret, once; POST :id/test queues a `webhook.test` event; GET :id/deliveries is its delivery log,
 * newest first; POST :id/deliveries/:eventId/resend gives an event one more attempt with the same `webhook-id`.
 */
export function webhookRoutes(deps: WebhookRouteDeps) {
  const { webhooks } = deps;
  const scope = scopeOf(deps.demoKeys);
  const app = new Hono<AppEnv>();
  app.use('*', requireSession(deps.sessions));
  app.get('/', async (c) => {
    const rows = await inDatabase(() => webhooks.endpoints.list(scope(c)));
    return c.json({ endpoints: rows.map(toEndpoint) } satisfies WebhookEndpointsResponse);
  });
  app.post('/', jsonBody(CreateWebhookRequest, BODY), async (c) => {
    const session = c.get('session');
    const input = c.req.valid('json');
    // Before DNS: a demo visitor's URL elsewhere is refused without being looked up.
    if (scope(c).visitor !== null && !onThisMachine(input.url))
      throw new ApiError(
        403,
        'plan_not_eligible',
        'On the public demo, webhooks go only to a receiver on the demo server itself (http://127.0.0.1:<port>/…): ' +
          'its keys are public, and PropLens does not post to the internet for whoever holds them. Sign in with ' +
          'your own API key to send webhooks to your own receiver.',
      );
    const url = await checkedUrl(webhooks, input.url);
    const existing = await inDatabase(() => webhooks.endpoints.list(scope(c)));
    if (existing.length >= MAX_WEBHOOK_ENDPOINTS)
      throw new ApiError(
        409,
        'conflict',
        `An account has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints: remove one first.`,
      );
    const made = await keepingSecrets(() =>
      webhooks.endpoints.create(scope(c), {
        url,
        events: input.events,
        createdBy: keyFingerprint(session.keyHash),
      }),
    );
    return c.json(withSecret(made), 201);
  });
  app.patch('/:id', jsonBody(UpdateWebhookRequest, BODY), async (c) => {
    const change = c.req.valid('json');
    const row = await inDatabase(() => webhooks.endpoints.update(scope(c), c.req.param('id'), change));
    if (!row) throw noSuchEndpoint();
    return c.json(toEndpoint(row));
  });
  app.delete('/:id', async (c) => {
    const gone = await inDatabase(() => webhooks.endpoints.delete(scope(c), c.req.param('id')));
    if (!gone) throw noSuchEndpoint();
    return c.body(null, 204);
  });
  app.post('/:id/rotate-secret', async (c) => {
    const rotated = await keepingSecrets(() => webhooks.endpoints.rotateSecret(scope(c), c.req.param('id')));
    if (!rotated) throw noSuchEndpoint();
    return c.json(withSecret(rotated));
  });
  app.post('/:id/test', (c) => sendTest(c, webhooks, scope(c)));
  app.get('/:id/deliveries', async (c) => {
    const endpoint = await ownEndpoint(c, webhooks, scope(c));
    const before = c.req.query('before');
    if (before !== undefined && !/^\d{1,16}\.msg_[0-9a-f]{24}$/.test(before))
      throw new ApiError(400, 'bad_request', 'before: pass the `next` of the previous page.');
    const log = await inDatabase(() => deliveryLog(webhooks.outbox.db, endpoint.id, before));
    return c.json(log satisfies WebhookDeliveriesResponse);
  });
  app.post('/:id/deliveries/:eventId/resend', async (c) => {
    const endpoint = await ownEndpoint(c, webhooks, scope(c));
    const answer = await inDatabase(() =>
      webhooks.outbox.resend(endpoint.account_id, endpoint.id, c.req.param('eventId')),
    );
    if (answer === 'not_found') throw new ApiError(404, 'not_found', 'This endpoint has no such delivery.');
    if (answer === 'sending')
      throw new ApiError(
        409,
        'conflict',
        'This event is being sent right now: look at the log again in a moment.',
      );
    webhooks.dispatcher.notify();
    return c.json({ id: c.req.param('eventId') } satisfies WebhookTestResponse, 202);
  });
  return app;
}

/** The URL as it will be sent to, or 400 with why not (not http(s), credentials, a private address). */
async function checkedUrl(webhooks: Webhooks, text: string): Promise<string> {
  try {
    await webhooks.checkUrl(text);
  } catch (err) {
    if (err instanceof RefusedTarget) throw new ApiError(400, 'bad_request', err.message);
    throw err;
  }
  return new URL(text.trim()).toString();
}

/**
 * A URL whose host is a loopback address written as such: the only receivers a public demo visitor may add
 * (hostile review M5: with the demo's public keys anyone could make PropLens POST anywhere, an open relay). An IP
 * literal, not a name: a name could be pointed elsewhere after it was saved. Such a URL still passes the SSRF
 * check only with WEBHOOK_ALLOW_PRIVATE_NETWORKS (a demo with its own test receiver).
 */
function onThisMachine(text: string): boolean {
  // Not a URL at all: the SSRF check's 400 says so.
  if (!URL.canParse(text.trim())) return true;
  const host = new URL(text.trim()).hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

/**
 * Whose endpoints the caller's session sees: its account's, or a public demo visitor's own (their key is theirs
 * for the visit, and every visitor signs in to the one demo account).
 */
function scopeOf(demoKeys: DemoKey[] | null) {
  const isDemo = (key: string) => demoKeys?.some((d) => d.key === key || d.key === demoKeyOf(key)) ?? false;
  return (c: AppContext): EndpointScope => {
    const session = c.get('session');
    return {
      accountId: session.accountId,
      visitor: isDemo(session.apiKey) ? keyFingerprint(session.keyHash) : null,
    };
  };
}

async function ownEndpoint(
  c: AppContext,
  webhooks: Webhooks,
  scope: EndpointScope,
): Promise<WebhookEndpointsTable> {
  const id = c.req.param('id') as string;
  const row = await inDatabase(() => webhooks.endpoints.get(scope, id));
  if (!row) throw noSuchEndpoint();
  return row;
}

/** *Send test event*: a `webhook.test` message to this endpoint alone, whatever events it subscribes to. */
async function sendTest(c: AppContext, webhooks: Webhooks, scope: EndpointScope) {
  const endpoint = await ownEndpoint(c, webhooks, scope);
  if (endpoint.enabled !== 1)
    throw new ApiError(409, 'conflict', 'This endpoint is turned off: turn it on to send it a test event.');
  const session = c.get('session');
  const data = { endpointId: endpoint.id, sentBy: keyFingerprint(session.keyHash) };
  const [id] = await inDatabase(() =>
    webhooks.outbox.enqueue(endpoint.account_id, WEBHOOK_TEST_EVENT, data, `test:${crypto.randomUUID()}`, {
      only: { endpointId: endpoint.id },
    }),
  );
  if (!id) throw noSuchEndpoint();
  webhooks.dispatcher.notify();
  return c.json({ id } satisfies WebhookTestResponse, 202);
}

/** The answer that shows a secret: the one time it is ever shown. */
function withSecret({ row, secret }: WithSecret): WebhookSecretResponse {
  return { endpoint: toEndpoint(row), secret };
}

/** A new secret made and sealed; 409 in words where this server has no secret to seal it with. */
async function keepingSecrets<T>(make: () => Promise<T>): Promise<T> {
  try {
    return await inDatabase(make);
  } catch (err) {
    if (err instanceof SecretsUnavailable) throw new ApiError(409, 'conflict', err.message);
    throw err;
  }
}
