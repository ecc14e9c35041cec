import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppNotification, Monitor, MonitorInterval, ReviewSummary } from '../../../contract/index.ts';
import { ProtectedLayout } from '../../app/layouts.tsx';
import { fakeApi, json, location, Route, renderRoutes } from '../../test/utils.tsx';
import { NotificationsList } from './notifications-list.tsx';
import { ReviewMonitor } from './review-monitor.tsx';

/*
 * Monitoring as a reviewer meets it: Monitor on a finished review opens the schedule (Every minute only where the
 * server offers it), saving sends the schedule and the page then says when it runs and offers Stop monitoring;
 * the header's Notifications link counts unread alerts, and /notifications lists them linked to their review.
 */

afterEach(() => vi.unstubAllGlobals());

const session = {
  account: { name: 'Harbor & Vale Realty', plan: 'professional' },
  accountId: 'acct-a',
  demo: false,
  keyFingerprint: '3f9a1c2e',
  keyName: null,
};

const review: ReviewSummary = {
  id: 'rv_1',
  name: 'Collateral',
  kind: 'paste',
  origin: null,
  createdBy: '3f9a1c2e',
  createdAt: '2026-11-20T09:00:00.000Z',
  status: 'done',
  columns: [],
  totalRows: 40,
  receivedRows: 40,
  skippedBlank: 0,
  runs: [],
};

const alert = (over: Partial<AppNotification> = {}): AppNotification => ({
  id: 'nt_1',
  reviewId: 'rv_1',
  reviewName: 'Collateral',
  run: 3,
  rowsChanged: 3,
  counts: { source_changed: 2, confidence_dropped: 1 },
  createdAt: '2026-11-26T09:01:00.000Z',
  readAt: null,
  ...over,
});

function api(intervals: MonitorInterval[], unread = 0) {
  let monitors: Monitor[] = [];
  const calls = fakeApi({
    'GET /api/session': () => json(session),
    'GET /api/monitors': () => json({ monitors, intervals }),
    'GET /api/notifications': () =>
      json({ unread, notifications: unread ? [alert()] : [], nextCursor: null }),
    'POST /api/notifications/read': () => {
      unread = 0;
      return json({ unread });
    },
    'PUT /api/reviews/rv_1/monitor': ({ body }) => {
      const b = body as Monitor;
      monitors = [
        {
          ...b,
          reviewId: 'rv_1',
          reviewName: 'Collateral',
          weekday: 4,
          usedThisMonth: 0,
          nextRunAt: '2026-11-27T08:00:00.000Z',
          lastRunAt: null,
          pausedReason: null,
          createdBy: '3f9a1c2e',
        },
      ];
      return json(monitors[0]);
    },
    'DELETE /api/reviews/rv_1/monitor': () => {
      monitors = [];
      return new Response(null, { status: 204 });
    },
  });
  return calls;
}

const page = (
  <Route element={<ProtectedLayout />}>
    <Route path="/review/rv_1" element={<ReviewMonitor review={review} />} />
    <Route path="/notifications" element={<NotificationsList />} />
  </Route>
);

describe('monitoring', () => {
  it('Monitor opens the schedule; saving sends it, then the page says when it runs and offers Stop monitoring', async () => {
    const user = userEvent.setup();
    const { calls } = api(['minute', 'hour', 'day', 'week']);
    renderRoutes(page, '/review/rv_1');
    await user.click(await screen.findByRole('button', { name: 'Monitor' }));
    const dialog = screen.getByRole('dialog', { name: 'Monitor this review' });
    const schedule = within(dialog).getByLabelText('Schedule');
    expect(
      within(schedule)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Every minute', 'Every hour', 'Every day', 'Every week']);
    expect(
      within(dialog).getByText(`Time zone: ${Intl.DateTimeFormat().resolvedOptions().timeZone}`),
    ).toBeInTheDocument();
    await user.selectOptions(schedule, 'Every week');
    await user.click(within(dialog).getByLabelText('Any change'));
    await user.click(within(dialog).getByLabelText(/Record stale/));
    await user.clear(within(dialog).getByLabelText('Stale after days'));
    await user.type(within(dialog).getByLabelText('Stale after days'), '90');
    await user.clear(within(dialog).getByLabelText('Lookups a month at most'));
    await user.type(within(dialog).getByLabelText('Lookups a month at most'), '400');
    await user.click(within(dialog).getByRole('button', { name: 'Start monitoring' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
      interval: 'week',
      timeOfDay: '09:00',
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      rules: { anyChange: false, kinds: ['stale'], staleDays: 90 },
      monthlyCap: 400,
    });
    expect(await screen.findByText(/Every week on Thursday at 09:00/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Stop monitoring' }));
    expect(await screen.findByRole('button', { name: 'Monitor' })).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE')).toBe(true);
  });

  it('offers no Every minute where the server does not', async () => {
    const user = userEvent.setup();
    api(['hour', 'day', 'week']);
    renderRoutes(page, '/review/rv_1');
    await user.click(await screen.findByRole('button', { name: 'Monitor' }));
    const options = within(screen.getByLabelText('Schedule')).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['Every hour', 'Every day', 'Every week']);
  });

  it('the header links to Notifications with the unread count; the page lists the alert, linked to its changes', async () => {
    const user = userEvent.setup();
    api(['hour', 'day', 'week'], 1);
    renderRoutes(page, '/review/rv_1');
    const link = await screen.findByRole('link', { name: /^Notifications\s*1\s*unread$/ });
    await user.click(link);
    expect(location.pathname).toBe('/notifications');
    expect(
      await screen.findByText('3 rows changed: 2 source changed, 1 confidence dropped'),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Changes since run 2' }));
    expect(location.pathname).toBe('/review/rv_1');
    await waitFor(() => expect(screen.getByRole('link', { name: 'Notifications' })).toBeInTheDocument());
  });
});
