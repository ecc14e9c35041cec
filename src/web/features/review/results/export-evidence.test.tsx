import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi } from '../../../test/utils.tsx';
import { makeSummary } from '../testing/stats.fixtures.ts';
import { ExportEvidence } from './export-evidence.tsx';

const counts = { total: 3, done: 3, matched: 3, notFound: 0, ambiguous: 0, failed: 0 };
const finished = makeSummary({
  id: 'rv_abc',
  runs: [{ number: 1, startedAt: '2026-11-01T00:00:00Z', finishedAt: '2026-11-01T00:10:00Z', counts }],
});
const running = makeSummary({
  id: 'rv_abc',
  runs: [{ number: 1, startedAt: '2026-11-01T00:00:00Z', finishedAt: null, counts }],
});

describe('Export evidence', () => {
  const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
  afterEach(() => {
    URL.createObjectURL = original.create;
    URL.revokeObjectURL = original.revoke;
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it('saves the server’s signed packet under its name once the review has finished, and points to Verify', async () => {
    const saved: string[] = [];
    URL.createObjectURL = () => 'blob:test/0';
    URL.revokeObjectURL = () => {};
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    const api = fakeApi({
      'GET /api/reviews/rv_abc/evidence.zip': () =>
        new Response(new Uint8Array([80, 75, 5, 6]), {
          headers: {
            'content-type': 'application/zip',
            'content-disposition': 'attachment; filename="proplens-q3-2026-11-27.evidence.zip"',
          },
        }),
    });
    const { rerender } = render(
      <MemoryRouter>
        <ExportEvidence review={running} />
      </MemoryRouter>,
    );
    expect(screen.getByRole('button', { name: 'Export evidence' })).toBeDisabled();
    rerender(
      <MemoryRouter>
        <ExportEvidence review={finished} />
      </MemoryRouter>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Export evidence' }));
    expect(await screen.findByText(/Saved proplens-q3-2026-11-27.evidence.zip/)).toBeInTheDocument();
    expect(saved).toEqual(['proplens-q3-2026-11-27.evidence.zip']);
    expect(api.calls.map((c) => c.url.pathname)).toEqual(['/api/reviews/rv_abc/evidence.zip']);
    // The reader's day, as Export CSV sends it: the packet is named and its ages counted to it.
    expect(api.calls[0]?.url.searchParams.get('today')).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(screen.getByRole('link', { name: 'Verify' })).toHaveAttribute('href', '/verify');
  });

  it('says in words why a packet could not be made', async () => {
    fakeApi({
      'GET /api/reviews/rv_abc/evidence.zip': () =>
        apiError(409, 'conflict', 'The review is still running: export its evidence once it is done.'),
    });
    render(
      <MemoryRouter>
        <ExportEvidence review={finished} />
      </MemoryRouter>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Export evidence' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The evidence packet could not be made. The review is still running: export its evidence once it is done. Try again.',
    );
  });

  it('asks once more for a download cut short, and says so when it is cut again', async () => {
    URL.createObjectURL = () => 'blob:test/0';
    URL.revokeObjectURL = () => {};
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    const cut = () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new Uint8Array([80, 75, 3, 4]));
            controller.error(new TypeError('terminated'));
          },
        }),
        { headers: { 'content-type': 'application/zip' } },
      );
    // The next this many answers are cut short.
    let cuts = 1;
    const api = fakeApi({
      'GET /api/reviews/rv_abc/evidence.zip': () =>
        cuts-- > 0
          ? cut()
          : new Response(new Uint8Array([80, 75, 5, 6]), {
              headers: {
                'content-disposition': 'attachment; filename="proplens-q3-2026-11-27.evidence.zip"',
              },
            }),
    });
    render(
      <MemoryRouter>
        <ExportEvidence review={finished} />
      </MemoryRouter>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Export evidence' }));
    expect(await screen.findByText(/Saved proplens-q3-2026-11-27.evidence.zip/)).toBeInTheDocument();
    expect(api.calls).toHaveLength(2);

    cuts = 2;
    api.calls.length = 0;
    await userEvent.click(screen.getByRole('button', { name: 'Export evidence' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The evidence packet could not be made. Its download was cut short twice: the review may be changing as it is packed, or the connection dropped. Try again.',
    );
    expect(api.calls).toHaveLength(2);
  });
});
