import { useSyncExternalStore } from 'react';

/**
 * Whether the page is in dark mode (the app follows the system setting). SVG fills are attributes, not
 * classes, so the charts need the answer in JavaScript to pick colours that read on either background.
 */
export const usePrefersDark = () => useMediaQuery('(prefers-color-scheme: dark)');

/** Phone width: the charts shorten and tilt their labels to fit. */
export const useNarrow = () => useMediaQuery('(max-width: 639px)');

function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      if (typeof window.matchMedia !== 'function') return () => {};
      const mq = window.matchMedia(query);
      mq.addEventListener('change', onChange);
      return () => mq.removeEventListener('change', onChange);
    },
    () => typeof window.matchMedia === 'function' && window.matchMedia(query).matches,
    () => false,
  );
}
