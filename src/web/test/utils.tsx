import { QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { type ReactNode, useEffect } from 'react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterAll, beforeAll, vi } from 'vitest';
import { createQueryClient, followSessionEnd } from '../app/query-client.ts';
import { sessionFlags } from '../features/auth/session-flags.ts';

export type Handler = (req: { method: string; url: URL; body: unknown }) => Response | Promise<Response>;

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** GET /api/session signed in, as the BFF answers it: Harbor & Vale Realty's professional account, `over` on top. */
export const signedIn =
  (over: Record<string, unknown> = {}): Handler =>
  () =>
    json({
      account: { name: 'Harbor & Vale Realty', plan: 'professional' },
      accountId: 'acct-a',
      demo: false,
      ...over,
    });

export const apiError = (
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
) => json({ error: { code, message, ...extra } }, status);

/**
 * GET /api/properties/resolve when no one record matches, as the BFF answers it: a 200 naming why (not found,
 * ambiguous, no such unit), with the candidates and the budget the lookup left.
 */
export const resolveMiss = (
  code: 'not_found' | 'ambiguous' | 'unit_not_found',
  message: string,
  extra: Record<string, unknown> = {},
  rateLimit: unknown = null,
) => json({ miss: { code, message, ...extra }, rateLimit });

/**
 * Fakes the network at the fetch level: `routes` maps "METHOD /path" to a handler. Every call is recorded,
 * and a call to an unlisted route fails the test loudly.
 */
export function fakeApi(routes: Record<string, Handler>) {
  const calls: { method: string; url: URL; body: unknown; headers: Headers }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init?.method ?? 'GET').toUpperCase();
    // JSON as the BFF reads it; a file sent as it is (a Blob) as it was sent.
    const body =
      typeof init?.body === 'string'
        ? JSON.parse(init.body)
        : init?.body instanceof Blob
          ? init.body
          : undefined;
    calls.push({ method, url, body, headers: new Headers(init?.headers) });
    // "METHOD /path" exactly, else a prefix route "METHOD /path/*" (resources by id).
    const handler =
      routes[`${method} ${url.pathname}`] ??
      Object.entries(routes).find(
        ([key]) => key.endsWith('/*') && `${method} ${url.pathname}`.startsWith(key.slice(0, -1)),
      )?.[1];
    if (!handler) throw new Error(`Unexpected request ${method} ${url.pathname}`);
    return handler({ method, url, body });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

/** Where the memory router is now, for assertions on navigation. */
export const location = { pathname: '', search: '' };
/** The app's rule for an ended session, as App installs it. */
function SessionEndRule() {
  const client = useQueryClient();
  useEffect(() => followSessionEnd(client), [client]);
  return null;
}
function LocationProbe() {
  const l = useLocation();
  location.pathname = l.pathname;
  location.search = l.search;
  return null;
}

/** A fresh QueryClient (no shared cache between tests) and a memory router at `path`. */
export function renderRoutes(routes: ReactNode, path: string) {
  const queryClient = createQueryClient();
  sessionFlags.clear();
  queryClient.setDefaultOptions({ queries: { ...queryClient.getDefaultOptions().queries, retry: false } });
  const utils = render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        <SessionEndRule />
        <LocationProbe />
        <Routes>{routes}</Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { ...utils, queryClient };
}

export { Route };

export function Probe({ label }: { label: string }): ReactNode {
  return <p>{label}</p>;
}

/**
 * jsdom lays nothing out: for this file's tests, elements have a size, as in a browser, so a virtualised table
 * has a viewport to fill (600 px high: about 12 rows of 52 px, plus its overscan).
 */
export function layOutElements(size = { height: 600, width: 1000 }) {
  const keys = ['clientHeight', 'clientWidth'] as const;
  const saved = keys.map((k) => Object.getOwnPropertyDescriptor(Element.prototype, k));
  beforeAll(() => {
    Object.defineProperty(Element.prototype, 'clientHeight', { configurable: true, get: () => size.height });
    Object.defineProperty(Element.prototype, 'clientWidth', { configurable: true, get: () => size.width });
  });
  afterAll(() => {
    keys.forEach((k, i) => {
      const d = saved[i];
      if (d) Object.defineProperty(Element.prototype, k, d);
      else delete (Element.prototype as unknown as Record<string, unknown>)[k];
    });
  });
}
