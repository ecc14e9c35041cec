import { useEffect, useState } from 'react';

const secondsLeft = (target: number) => Math.max(0, Math.ceil((target - Date.now()) / 1000));

/** Whole seconds until `resetAt` (ISO date-time), ticking once a second; 0 when past or unknown. */
export function useSecondsUntil(resetAt: string | null | undefined): number {
  // A fixed target when unknown: Date.now() here would change every render and restart the timer.
  const target = resetAt ? Date.parse(resetAt) : 0;
  const [left, setLeft] = useState(() => secondsLeft(target));
  useEffect(() => {
    const tick = () => setLeft(secondsLeft(target));
    tick();
    const timer = setInterval(tick, 1000);
    return () => clearInterval(timer);
  }, [target]);
  return left;
}
