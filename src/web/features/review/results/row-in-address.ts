import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

/**
 * The row whose details are open, as its page's address says it (?row=13, numbered as the table and the Activity
 * page number rows): a link from an entry of the trail opens that row, and closing it takes the number away.
 */
export function useRowInAddress(): [number | null, (index: number | null) => void] {
  const [params, setParams] = useSearchParams();
  const n = Number(params.get('row'));
  const index = Number.isInteger(n) && n >= 1 ? n - 1 : null;
  const set = useCallback(
    (next: number | null) =>
      setParams(
        (p) => {
          const out = new URLSearchParams(p);
          if (next === null) out.delete('row');
          else out.set('row', String(next + 1));
          return out;
        },
        { replace: true },
      ),
    [setParams],
  );
  return [index, set];
}
