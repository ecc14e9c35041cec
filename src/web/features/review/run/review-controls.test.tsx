import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReviewStatus, ReviewSummary } from '../../../../contract/index.ts';
import { apiError, fakeApi, json, Route, renderRoutes } from '../../../test/utils.tsx';
import { statusLabel } from './review-list.tsx';
import { ReviewProgress } from './review-progress.tsx';

const summary = (status: ReviewStatus, done = 3): ReviewSummary => ({
  id: 'rv-1',
  name: 'Loans',
  kind: 'paste',
  origin: null,
  createdBy: 'ab12cd34',
  createdAt: '2026-11-01T10:00:00.000Z',
  status,
  columns: [],
  totalRows: 10,
  receivedRows: 10,
  skippedBlank: 0,
  runs: [
    {
      number: 1,
      startedAt: '2026-11-01T10:00:00.000Z',
      finishedAt: status === 'cancelled' || status === 'done' ? '2026-11-01T10:05:00.000Z' : null,
      counts: { total: 10, done, matched: done, notFound: 0, ambiguous: 0, failed: 0 },
    },
  ],
});

function show(s: ReviewSummary) {
  return renderRoutes(
    <Route
      path="/review/:id"
      element={<ReviewProgress summary={s} live onCheckAgain={() => {}} checking={false} checkError={null} />}
    />,
    '/review/rv-1',
  );
}

afterEach(() => vi.unstubAllGlobals());

/** What the page asked the server to do: its reads (the session, for what a waiting review says) left out. */
const changes = (api: ReturnType<typeof fakeApi>) => api.calls.filter((c) => c.method !== 'GET');

describe('Pause, Resume and Cancel on the review page', () => {
  it('a running review pauses at a click, and the buttons wait for the new state', async () => {
    const api = fakeApi({ 'POST /api/reviews/rv-1/pause': () => json(summary('paused')) });
    show(summary('running'));
    expect(screen.queryByRole('button', { name: 'Resume' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(changes(api).map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /api/reviews/rv-1/pause',
    ]);
    // Until the live view says paused, a second click would ask again.
    expect(screen.getByRole('button', { name: 'Pause' })).toBeDisabled();
  });

  it('a paused review says so, and resumes', async () => {
    const api = fakeApi({ 'POST /api/reviews/rv-1/resume': () => json(summary('running')) });
    show(summary('paused'));
    expect(screen.getByTestId('review-status')).toHaveTextContent(
      'Paused: 7 addresses wait; none is looked up until someone resumes it.',
    );
    expect(screen.queryByRole('button', { name: 'Pause' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Resume' }));
    expect(changes(api).map((c) => c.url.pathname)).toEqual(['/api/reviews/rv-1/resume']);
  });

  it('Cancel asks first, saying the answers so far are kept, and only then cancels', async () => {
    const api = fakeApi({ 'POST /api/reviews/rv-1/cancel': () => json(summary('cancelled')) });
    show(summary('running'));
    await userEvent.click(screen.getByRole('button', { name: 'Cancel review' }));
    const confirm = screen.getByRole('region', { name: 'Cancel this review?' });
    expect(confirm).toHaveTextContent('Every answer so far is kept.');
    // Rows being asked at the click still finish: the figure is a bound, not a promise.
    expect(confirm).toHaveTextContent(
      'Up to 7 addresses not looked up yet will not be asked (those being looked up right now still finish)',
    );
    expect(changes(api)).toEqual([]);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Don’t cancel' }));
    expect(screen.queryByRole('region', { name: 'Cancel this review?' })).toBeNull();
    expect(changes(api)).toEqual([]);

    await userEvent.click(screen.getByRole('button', { name: 'Cancel review' }));
    await userEvent.click(screen.getByRole('button', { name: 'Yes, cancel the review' }));
    expect(changes(api).map((c) => c.url.pathname)).toEqual(['/api/reviews/rv-1/cancel']);
  });

  it('says why the server refused, in its words', async () => {
    fakeApi({
      'POST /api/reviews/rv-1/pause': () =>
        apiError(409, 'conflict', 'This review has finished: there is nothing to pause.'),
    });
    show(summary('running'));
    await userEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This review has finished: there is nothing to pause.',
    );
    expect(screen.getByRole('button', { name: 'Pause' })).toBeEnabled();
  });

  it('a cancelled review says what it kept, offers Check again, and no more controls', () => {
    fakeApi({});
    show(summary('cancelled', 4));
    expect(screen.getByTestId('review-status')).toHaveTextContent(
      'Cancelled: 4 of 10 addresses were looked up and keep their answers; the rest were not asked.',
    );
    expect(screen.getByRole('button', { name: 'Check again' })).toBeInTheDocument();
    for (const name of ['Pause', 'Resume', 'Cancel review'])
      expect(screen.queryByRole('button', { name })).toBeNull();
  });

  it('a finished review has no controls', () => {
    fakeApi({});
    show(summary('done', 10));
    for (const name of ['Pause', 'Resume', 'Cancel review', 'Delete'])
      expect(screen.queryByRole('button', { name })).toBeNull();
  });

  it('an upload not finished says so, and is cancelled (its rows received kept) or deleted from its page', async () => {
    const uploading: ReviewSummary = { ...summary('uploading'), receivedRows: 4, runs: [] };
    const api = fakeApi({
      'POST /api/reviews/rv-1/cancel': () => json({ ...uploading, status: 'cancelled' }),
      'DELETE /api/reviews/rv-1': () => new Response(null, { status: 204 }),
    });
    renderRoutes(
      <>
        <Route
          path="/review/:id"
          element={
            <ReviewProgress
              summary={uploading}
              live
              onCheckAgain={() => {}}
              checking={false}
              checkError={null}
            />
          }
        />
        <Route path="/review" element={<p>All reviews</p>} />
      </>,
      '/review/rv-1',
    );
    expect(screen.getByTestId('review-status')).toHaveTextContent(
      'Upload not finished: 4 of 10 rows received. The rest come only from the page that started it; if that ' +
        'page was closed, cancel the upload (the rows received are kept) or delete it.',
    );
    expect(screen.getByRole('progressbar', { name: 'Review progress' })).toHaveAccessibleName(
      'Review progress',
    );
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuetext', '4 of 10');
    expect(screen.queryByRole('button', { name: 'Pause' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Cancel upload' }));
    const confirm = screen.getByRole('region', { name: 'Cancel this review?' });
    expect(confirm).toHaveTextContent(
      'Cancel this upload? The 4 rows received are kept and not asked (the export marks them “not asked”); ' +
        'the 6 rows not received will not be taken any more.',
    );
    await userEvent.click(within(confirm).getByRole('button', { name: 'Yes, cancel the upload' }));
    expect(changes(api).map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /api/reviews/rv-1/cancel',
    ]);

    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    expect(changes(api)).toHaveLength(1);
    await userEvent.click(screen.getByRole('button', { name: 'Delete Loans' }));
    expect(await screen.findByText('All reviews')).toBeInTheDocument();
    expect(
      changes(api)
        .map((c) => `${c.method} ${c.url.pathname}`)
        .at(-1),
    ).toBe('DELETE /api/reviews/rv-1');
  });

  it('an upload cancelled part-way says how much arrived, and offers Check again', () => {
    fakeApi({});
    const cancelledUpload: ReviewSummary = {
      ...summary('cancelled', 0),
      receivedRows: 1,
      runs: [
        {
          number: 1,
          startedAt: '2026-11-01T10:00:00.000Z',
          finishedAt: '2026-11-01T10:00:00.000Z',
          counts: { total: 1, done: 0, matched: 0, notFound: 0, ambiguous: 0, failed: 0 },
        },
      ],
    };
    show(cancelledUpload);
    expect(screen.getByTestId('review-status')).toHaveTextContent(
      'Upload cancelled: 1 of 10 rows were received, and none was asked. Check again looks up the rows received.',
    );
    expect(screen.getByRole('button', { name: 'Check again' })).toBeInTheDocument();
    // The list of reviews says the same.
    expect(statusLabel(cancelledUpload)).toBe('Upload cancelled: 1 of 10 rows in');
    expect(statusLabel(summary('cancelled'))).toBe('Cancelled');
  });

  it('one address waiting is said in the singular', () => {
    fakeApi({});
    show(summary('paused', 9));
    expect(screen.getByTestId('review-status')).toHaveTextContent('Paused: 1 address waits;');
  });
});
