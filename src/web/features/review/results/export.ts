import type { CsvSeparatorName, ReviewExportFormat } from '../../../../contract/index.ts';
import { apiDownloadNamed } from '../../../lib/api-client.ts';

/*
 * The review's evidence export is the BFF's: GET /api/reviews/:id/export.csv or .json streams every row of a run
 * (the file's own columns first, then PropLens's). The page only asks for it and saves what comes back.
 */

/** The reader's calendar day, YYYY-MM-DD: the export counts verification ages to it, as the screen does. */
export function localDay(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function reviewExportPath(
  reviewId: string,
  format: ReviewExportFormat,
  options: { run?: number; today: string; separator?: CsvSeparatorName },
): string {
  const query = new URLSearchParams();
  if (options.run !== undefined) query.set('run', String(options.run));
  query.set('today', options.today);
  if (format === 'csv' && options.separator === 'semicolon') query.set('separator', 'semicolon');
  return `/api/reviews/${encodeURIComponent(reviewId)}/export.${format}?${query}`;
}

/** Downloads the export of `run` (default the latest) and saves it under the BFF's name; returns that name. */
export async function downloadReviewExport(
  reviewId: string,
  format: ReviewExportFormat,
  options: { run?: number; now: Date; separator?: CsvSeparatorName },
): Promise<string> {
  const { blob, name } = await apiDownloadNamed(
    reviewExportPath(reviewId, format, {
      ...(options.run !== undefined ? { run: options.run } : {}),
      today: localDay(options.now),
      ...(options.separator ? { separator: options.separator } : {}),
    }),
  );
  saveFile(blob, name);
  return name;
}

/** Saves a downloaded file through a Blob URL, freed once the click has started the download. */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked on the next task: the click has started the download by then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
