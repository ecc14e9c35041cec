import { type ReactNode, useId } from 'react';

/**
 * A hint shown on hover and on keyboard focus, and always available to screen readers as the trigger's
 * description. Pure CSS, so it cannot get stuck open.
 */
export function Tooltip({
  label,
  children,
  className = '',
}: {
  label: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const id = useId();
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so keyboard users can read the hint
    <span tabIndex={0} aria-describedby={id} className={`group relative inline-flex ${className}`}>
      {children}
      <span
        role="tooltip"
        id={id}
        className="pointer-events-none invisible absolute left-0 top-full z-20 mt-2 w-72 max-w-[80vw] rounded-md bg-slate-900 px-3 py-2 text-left text-xs font-normal leading-relaxed text-white opacity-0 shadow-lg transition-opacity group-hover:visible group-hover:opacity-100 group-focus:visible group-focus:opacity-100 dark:bg-slate-100 dark:text-slate-900"
      >
        {label}
      </span>
    </span>
  );
}
