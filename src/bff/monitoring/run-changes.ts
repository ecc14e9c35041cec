import type { Kysely } from 'kysely';
import type { ChangeKind, Confidence, MonitorRules, StoredChange } from '../../contract/index.ts';
import type { DatabaseSchema } from '../db/schema.ts';
import { StoredAnswer } from '../reviews/look-up-row.ts';
import { previousIfChanged } from '../stores/reviews/changes.ts';

/** Rows read at once from each of the two runs compared. */
const PAGE = 1_000;
/** Changed rows an alert (and its webhook) carries before and after; its counts cover them all. */
export const MAX_ALERT_ROWS = 1_000;
const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };
const DAY_MS = 86_400_000;
/** The foremost kind of a row's change first: a row's `change` in the alert is the first it shows. */
const ORDER: ChangeKind[] = [
  'no_longer_found',
  'other_property',
  'source_changed',
  'confidence_dropped',
  'stale',
  'other',
];

/**
 * What kinds of change a row shows since the run before (empty: none a reviewer relies on). "Changed" is the
 * "Changes since" view's own rule (stores/reviews/changes.ts); the kinds say how. `runAt`: when the run finished,
 * against which a record's last verification is stale past `staleDays`.
 */
export function changeKinds(
  before: StoredAnswer | undefined,
  after: StoredAnswer,
  staleDays: number,
  runAt: number,
): ChangeKind[] {
  if (!before || !previousIfChanged(before, after)) return [];
  const a = before.property;
  const b = after.property;
  const kinds = new Set<ChangeKind>();
  // A lookup that failed this time says nothing of the record: only a not-found answer is "no longer found".
  if (a && !b && after.outcome !== 'failed') kinds.add('no_longer_found');
  if (a && b && a.id !== b.id) kinds.add('other_property');
  if (a && b && a.id === b.id && a.source !== b.source) kinds.add('source_changed');
  if (a && b && RANK[b.confidence] < RANK[a.confidence]) kinds.add('confidence_dropped');
  if (b && Date.parse(b.lastVerified) < runAt - staleDays * DAY_MS) kinds.add('stale');
  if (kinds.size === 0) kinds.add('other');
  return ORDER.filter((k) => kinds.has(k));
}

/** Does a run's change, by its counts, call for an alert under the monitor's rules? */
export function worthAnAlert(change: StoredChange, rules: MonitorRules): boolean {
  if (change.rowsChanged === 0) return false;
  if (rules.anyChange) return true;
  return rules.kinds.some((k) => (change.counts[k] ?? 0) > 0);
}

const state = (s: StoredAnswer | undefined) => ({
  propertyId: s?.property?.id ?? null,
  source: s?.property?.source ?? null,
  confidence: s?.property?.confidence ?? null,
  lastVerified: s?.property?.lastVerified ?? null,
});

function parse(text: string | null): StoredAnswer | undefined {
  if (!text) return undefined;
  const answer = StoredAnswer.safeParse(JSON.parse(text));
  return answer.success ? answer.data : undefined;
}

/**
 * A finished run against the run before it, row by row a page at a time (a 100,000-row review is never read
 * whole): how many rows changed, counts by kind (a row counts under each kind it shows) and the first
 * MAX_ALERT_ROWS changed rows' before and after.
 */
export async function runChanges(
  db: Kysely<DatabaseSchema>,
  review: { id: string; name: string },
  run: number,
  rules: MonitorRules,
  runAt: number,
): Promise<StoredChange> {
  const change: StoredChange = {
    reviewId: review.id,
    name: review.name,
    run,
    counts: {},
    rows: [],
    rowsChanged: 0,
  };
  if (run < 2) return change;
  for (let from = 0; ; from += PAGE) {
    const page = await db
      .selectFrom('review_results')
      .select(['row_index', 'run', 'result'])
      .where('review_id', '=', review.id)
      .where('run', 'in', [run - 1, run])
      .where('row_index', '>=', from)
      .where('row_index', '<', from + PAGE)
      .orderBy('row_index')
      .execute();
    if (page.length === 0) {
      const more = await db
        .selectFrom('review_results')
        .select('row_index')
        .where('review_id', '=', review.id)
        .where('run', '=', run)
        .where('row_index', '>=', from)
        .limit(1)
        .executeTakeFirst();
      if (!more) return change;
      continue;
    }
    const before = new Map<number, StoredAnswer | undefined>();
    for (const r of page) if (Number(r.run) === run - 1) before.set(Number(r.row_index), parse(r.result));
    for (const r of page) {
      if (Number(r.run) !== run) continue;
      const after = parse(r.result);
      const was = before.get(Number(r.row_index));
      if (!after) continue;
      const kinds = changeKinds(was, after, rules.staleDays, runAt);
      if (kinds.length === 0) continue;
      change.rowsChanged++;
      for (const k of kinds) change.counts[k] = (change.counts[k] ?? 0) + 1;
      if (change.rows.length < MAX_ALERT_ROWS)
        change.rows.push({
          rowIndex: Number(r.row_index),
          change: kinds[0] as ChangeKind,
          before: state(was),
          after: state(after),
        });
    }
  }
}
