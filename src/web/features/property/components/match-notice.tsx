import { describeMatch, type MatchExplanation, matchKind, qualityOf } from '../../../../contract/index.ts';

/**
 * Above the record when its address differs from what was typed beyond case, punctuation and standard
 * abbreviations: the matched address and each change as typed → matched. A correction is worth a second
 * look (amber); a part the service only added (a ZIP, a suffix) is information (neutral). The BFF computed
 * the explanation (src/contract/match.ts); this only shows it.
 */
export function MatchNotice({ match, onShow }: { match: MatchExplanation; onShow?: () => void }) {
  const corrected = matchKind(match) === 'corrected';
  const quality = qualityOf(match);
  const tone = corrected
    ? 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950/60 dark:text-amber-100'
    : 'border-slate-300 bg-slate-50 text-slate-900 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100';
  return (
    <section
      aria-label="How the address was matched"
      className={`flex gap-3 rounded-lg border p-4 text-sm ${tone}`}
      data-testid="match-notice"
    >
      <svg aria-hidden="true" viewBox="0 0 20 20" className="mt-0.5 size-5 shrink-0">
        {corrected ? (
          <path
            d="M4 14.5l8.5-8.5 2 2L6 16.5H4zM11 7.5l2 2"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.6"
            strokeLinejoin="round"
          />
        ) : (
          <path
            d="M10 4v12M4 10h12"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
          />
        )}
      </svg>
      <div className="min-w-0 space-y-1">
        {onShow ? (
          // Another directional or street type than typed may be another property: asked, not answered.
          <h2 className="font-semibold">
            Did you mean <span className="break-words">{match.matched}</span>?
          </h2>
        ) : (
          <p className="font-semibold">
            {quality === 'changed_meaning'
              ? 'Matched with another street part than typed: '
              : quality === 'street_only'
                ? 'Matched from the street line alone: '
                : corrected
                  ? 'Matched after correcting what was typed: '
                  : 'Matched, with parts the service added: '}
            <span className="break-words">{match.matched}</span>
          </p>
        )}
        <p className="break-words">{describeMatch(match)}.</p>
        {match.reason ? <p className="break-words font-medium">Needs a look: {match.reason}.</p> : null}
        <p className="break-words text-xs opacity-80">You typed: “{match.typed}”</p>
        {onShow ? (
          <button
            type="button"
            onClick={onShow}
            className="mt-2 rounded-md border border-amber-700 bg-white px-3 py-1.5 text-sm font-semibold text-amber-950 hover:bg-amber-100 dark:border-amber-300 dark:bg-amber-950 dark:text-amber-100"
          >
            Yes, show this record
          </button>
        ) : null}
      </div>
    </section>
  );
}
