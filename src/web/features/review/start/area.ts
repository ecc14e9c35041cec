import { type Property, SearchResponse } from '../../../../contract/index.ts';
import { ApiRequestError, apiFetch } from '../../../lib/api-client.ts';

/** Most records an area review takes: stated on the form, so nobody thinks it is everything. */
export const AREA_CAP = 1000;

export type Area =
  | { kind: 'zip'; zip: string }
  | { kind: 'street'; street: string; city: string; state: string };

export const areaQuery = (area: Area) =>
  area.kind === 'zip' ? area.zip.trim() : `${area.street.trim()}, ${area.city.trim()}, ${area.state.trim()}`;

export const areaName = (area: Area) => (area.kind === 'zip' ? `ZIP ${area.zip.trim()}` : areaQuery(area));

const same = (a: string | null | undefined, b: string) =>
  (a ?? '').trim().toLowerCase() === b.trim().toLowerCase();

/** A search matches words anywhere; an area keeps the records that are in it. */
function inArea(p: Property, area: Area): boolean {
  if (area.kind === 'zip') return p.attributes.zip === area.zip.trim();
  return same(p.attributes.city, area.city) && same(p.attributes.state, area.state);
}

export interface WalkDeps {
  signal?: AbortSignal;
  cap?: number;
  /** After each page: the records so far and the page number. */
  onPage?: (found: number, page: number) => void;
  /** A page was refused as rate limited: waiting until then (epoch ms) before asking again. */
  onWait?: (until: number | null) => void;
  now?: () => number;
}

/**
 * Every record the service lists for an area, walked page by page with the search's cursor (each page one
 * upstream request, sent in the review lane so interactive searches go first), up to the cap. A page refused
 * as rate limited is asked again after the reset: that is waiting, not an error. Other refusals are thrown as
 * apiFetch throws them (ApiRequestError), so an ended session is handled where every other one is.
 */
export async function walkArea(
  area: Area,
  deps: WalkDeps = {},
): Promise<{ records: Property[]; capped: boolean }> {
  const cap = deps.cap ?? AREA_CAP;
  const now = deps.now ?? Date.now;
  const q = areaQuery(area);
  const seen = new Set<string>();
  const records: Property[] = [];
  let cursor: string | undefined;
  let page = 0;
  for (;;) {
    const params = new URLSearchParams({ q });
    if (cursor) params.set('cursor', cursor);
    let found: SearchResponse;
    try {
      found = await apiFetch(`/api/properties/search?${params}`, SearchResponse, {
        lane: 'review',
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
    } catch (err) {
      if (!(err instanceof ApiRequestError) || err.code !== 'rate_limited') throw err;
      const at = Date.parse(err.resetAt ?? '');
      const until = Number.isFinite(at) ? Math.min(at, now() + 3_600_000) : now() + 10_000;
      deps.onWait?.(until);
      await sleep(Math.max(250, until - now()), deps.signal);
      deps.onWait?.(null);
      continue;
    }
    page++;
    for (const p of found.items) {
      if (!inArea(p, area) || seen.has(p.id)) continue;
      seen.add(p.id);
      records.push(p);
      if (records.length >= cap) break;
    }
    deps.onPage?.(records.length, page);
    if (records.length >= cap) return { records, capped: true };
    if (!found.nextCursor) return { records, capped: false };
    cursor = found.nextCursor;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
