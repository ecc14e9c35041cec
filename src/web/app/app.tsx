import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { BrowserRouter } from 'react-router';
import { removeAccountQueries } from '../features/auth/api/account-queries.ts';
import { sessionQueryKey } from '../features/auth/api/get-session.ts';
import { watchOtherTabs } from '../lib/account-scope.ts';
import { createQueryClient, followSessionEnd } from './query-client.ts';
import { AppRoutes } from './router.tsx';

export function App() {
  const [queryClient] = useState(createQueryClient);
  useEffect(() => followSessionEnd(queryClient), [queryClient]);
  // Tabs share the session cookie: a sign-out or another account's sign-in in one tab ends this tab's view
  // of the old account's data, and it asks again who is signed in.
  useEffect(
    () =>
      watchOtherTabs(() => {
        removeAccountQueries(queryClient);
        void queryClient.invalidateQueries({ queryKey: sessionQueryKey });
      }),
    [queryClient],
  );
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </QueryClientProvider>
  );
}
