import { useEffect } from 'react';

export function SearchRoute() {
  useEffect(() => {
    document.title = 'Search · PropLens';
  }, []);
  return (
    <section aria-labelledby="search-heading">
      <h1 id="search-heading" className="text-2xl font-bold tracking-tight">
        You are signed in
      </h1>
      <p className="mt-2 max-w-prose text-slate-600 dark:text-slate-300">
        Address search is coming next. Your key has been checked with the Property Intelligence Service and is
        held on the PropLens server for this session.
      </p>
    </section>
  );
}
