import type { Confidence } from '../../../../contract/index.ts';
import { Tooltip } from '../../../components/ui/tooltip.tsx';
import {
  AGEING_MAX_DAYS,
  FRESH_MAX_DAYS,
  type FreshnessTier,
  longDate,
  relativeAge,
  tierFor,
} from '../lib/verification.ts';
import { CONFIDENCE_WORD, confidenceText, sourceKindText } from '../lib/vocabulary.ts';

/*
 * The three badges a reviewer reads first. Each says its meaning in words and has its own icon shape, so
 * nothing depends on colour alone.
 */

const BADGE = 'inline-flex items-center gap-1.5 rounded-full border px-3 py-1 text-sm font-semibold';

const CONFIDENCE = {
  high: {
    meaning: 'An authoritative source confirmed this record recently. It can be relied on for most purposes.',
    tone: 'border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-700 dark:bg-emerald-950 dark:text-emerald-100',
    icon: (
      <path
        d="M5 10.5l3 3 7-7"
        fill="none"
        stroke="currentColor"
        strokeWidth="2.2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    ),
  },
  medium: {
    meaning:
      'A less authoritative source, or a record not confirmed recently. Check the facts that matter before relying on it.',
    tone: 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-600 dark:bg-amber-950 dark:text-amber-100',
    icon: (
      <path
        d="M10 5v6M10 14.5v.5"
        fill="none"
        stroke="currentColor"
        strokeWidth="2.2"
        strokeLinecap="round"
      />
    ),
  },
  low: {
    meaning: 'A weak source or an old verification. Confirm it independently before relying on it.',
    tone: 'border-red-300 bg-red-50 text-red-900 dark:border-red-700 dark:bg-red-950 dark:text-red-100',
    icon: (
      <path
        d="M6.5 6.5l7 7M13.5 6.5l-7 7"
        fill="none"
        stroke="currentColor"
        strokeWidth="2.2"
        strokeLinecap="round"
      />
    ),
  },
} satisfies Record<Confidence, unknown>;

function ConfidenceIcon({ level, className }: { level: Confidence; className: string }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className={className}>
      <circle cx="10" cy="10" r="9" fill="none" stroke="currentColor" strokeWidth="1.5" />
      {CONFIDENCE[level].icon}
    </svg>
  );
}

/**
 * The confidence badge in a compact form for lists (suggestions, candidates, an area): the same icon and
 * the level's word, the rest of the phrase for screen readers.
 */
export function ConfidenceMark({ level }: { level: Confidence }) {
  const c = CONFIDENCE[level];
  return (
    <span
      className={`inline-flex shrink-0 items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-semibold ${c.tone}`}
      data-confidence={level}
    >
      <ConfidenceIcon level={level} className="size-3.5" />
      {CONFIDENCE_WORD[level]} <span className="sr-only">confidence</span>
    </span>
  );
}

export function ConfidenceBadge({ level }: { level: Confidence }) {
  const c = CONFIDENCE[level];
  return (
    <Tooltip
      label={<>{c.meaning} Confidence reflects the quality of the source and how recently it was verified.</>}
    >
      <span className={`${BADGE} ${c.tone}`} data-confidence={level}>
        <ConfidenceIcon level={level} className="size-4" />
        {confidenceText(level)}
      </span>
    </Tooltip>
  );
}

export function SourceBadge({ source, kind }: { source: string; kind: string | null }) {
  const hint = sourceKindText(kind);
  return (
    <span
      className={`${BADGE} border-slate-300 bg-white text-slate-800 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100`}
    >
      <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4">
        <path
          d="M4 8.5L10 4l6 4.5M5.5 8v7.5h9V8"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.6"
          strokeLinejoin="round"
        />
      </svg>
      <span>
        <span className="sr-only">Source: </span>
        {source}
        {hint ? (
          <span className="ml-1.5 font-normal text-slate-600 dark:text-slate-300">· {hint}</span>
        ) : null}
      </span>
    </span>
  );
}

const TIER = {
  fresh: {
    label: 'fresh',
    tone: 'border-sky-300 bg-sky-50 text-sky-900 dark:border-sky-700 dark:bg-sky-950 dark:text-sky-100',
  },
  ageing: {
    label: 'aging',
    tone: 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-600 dark:bg-amber-950 dark:text-amber-100',
  },
  stale: {
    label: 'stale',
    tone: 'border-red-300 bg-red-50 text-red-900 dark:border-red-700 dark:bg-red-950 dark:text-red-100',
  },
} satisfies Record<FreshnessTier, unknown>;

export function VerificationBadge({ lastVerified, days }: { lastVerified: string; days: number }) {
  const tier = tierFor(days);
  const t = TIER[tier];
  return (
    <Tooltip
      label={
        <>
          Last verified on {longDate(lastVerified)}. Fresh: within {FRESH_MAX_DAYS} days; aging: within{' '}
          {AGEING_MAX_DAYS} days; stale: older.
        </>
      }
    >
      <span className={`${BADGE} ${t.tone}`} data-tier={tier}>
        <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4">
          <circle cx="10" cy="10" r="8" fill="none" stroke="currentColor" strokeWidth="1.6" />
          <path
            d="M10 5.5V10l3 2"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.6"
            strokeLinecap="round"
          />
        </svg>
        Verified {relativeAge(days)}
        <span className="font-normal">({t.label})</span>
      </span>
    </Tooltip>
  );
}
