/**
 * The search screen's code, fetched once: on demand, or ahead of time (while a sign-in is being checked,
 * or alongside the session check of a cold load), so the screen appears without a loading step. A failed
 * fetch is forgotten, so the next attempt tries again.
 */
let loading: Promise<typeof import('./routes/search.tsx')> | null = null;

export function loadSearchRoute() {
  loading ??= import('./routes/search.tsx').catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}
