import { useState } from 'react';
import { Link } from 'react-router';
import type { ReviewSummary } from '../../../../contract/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ApiRequestError, apiDownloadNamed } from '../../../lib/api-client.ts';
import { localDay, saveFile } from './export.ts';

type State =
  | { kind: 'idle' }
  | { kind: 'busy' }
  | { kind: 'saved'; name: string }
  | { kind: 'failed'; text: string };

/**
 * Export evidence (issue 30): the finished review's signed packet, `proplens-<review>-<day>.evidence.zip` (the exports, the
 * runs and a manifest signed by this server), which anyone checks on /verify or with `npm run verify`.
 */
export function ExportEvidence({ review }: { review: ReviewSummary }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const finished = Boolean(review.runs.at(-1)?.finishedAt);
  const save = async () => {
    setState({ kind: 'busy' });
    const download = () =>
      apiDownloadNamed(
        `/api/reviews/${encodeURIComponent(review.id)}/evidence.zip?today=${localDay(new Date())}`,
      );
    try {
      // A download cut short (the server cuts a packet when the review changes while it is made) is asked
      // once more: the next packet is of the review as it is now. A refusal is not.
      const { blob, name } = await download().catch((err: unknown) => {
        if (err instanceof ApiRequestError) throw err;
        return download();
      });
      saveFile(blob, name);
      setState({ kind: 'saved', name });
    } catch (err) {
      const why =
        err instanceof ApiRequestError
          ? ` ${err.message}`
          : ' Its download was cut short twice: the review may be changing as it is packed, or the connection dropped.';
      setState({ kind: 'failed', text: `The evidence packet could not be made.${why} Try again.` });
    }
  };
  return (
    <>
      <Button
        variant="secondary"
        onClick={save}
        disabled={!finished || state.kind === 'busy'}
        title={finished ? undefined : 'Once the review has finished'}
      >
        Export evidence
      </Button>
      {state.kind === 'busy' ? (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
          Signing the evidence packet…
        </p>
      ) : state.kind === 'saved' ? (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
          Saved {state.name}. Anyone can check it on{' '}
          <Link className="underline" to="/verify">
            Verify
          </Link>
          .
        </p>
      ) : state.kind === 'failed' ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {state.text}
        </p>
      ) : null}
    </>
  );
}
