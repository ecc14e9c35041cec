import { type RefObject, useEffect, useState } from 'react';

/** Whether the element is wider inside than it shows (it scrolls sideways), kept current as it resizes. */
export function useScrollsSideways(ref: RefObject<HTMLElement | null>): boolean {
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const check = () => setScrolls(el.scrollWidth > el.clientWidth + 1);
    check();
    const seen = typeof ResizeObserver === 'function' ? new ResizeObserver(check) : null;
    seen?.observe(el);
    return () => seen?.disconnect();
  }, [ref]);
  return scrolls;
}
