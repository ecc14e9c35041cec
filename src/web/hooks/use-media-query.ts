import { useSyncExternalStore } from 'react';

/** Phone width: the charts shorten and tilt their labels to fit, and the results table shows fewer columns. */
export const useNarrow = () => useMediaQuery('(max-width: 639px)');

/** Whether a CSS media query matches, kept current as it changes. */
export function useMediaQuery(query: string): boolean {
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
