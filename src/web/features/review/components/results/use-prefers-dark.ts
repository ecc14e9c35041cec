import { useSyncExternalStore } from 'react';

const QUERY = '(prefers-color-scheme: dark)';

/**
 * Whether the page is in dark mode (the app follows the system setting). SVG fills are attributes, not
 * classes, so the charts need the answer in JavaScript to pick colours that read on either background.
 */
export function usePrefersDark(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      if (typeof window.matchMedia !== 'function') return () => {};
      const mq = window.matchMedia(QUERY);
      mq.addEventListener('change', onChange);
      return () => mq.removeEventListener('change', onChange);
    },
    () => typeof window.matchMedia === 'function' && window.matchMedia(QUERY).matches,
    () => false,
  );
}
