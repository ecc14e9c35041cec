import type { ReactNode } from 'react';

const TONES = {
  error: 'border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950/60 dark:text-red-100',
  warning:
    'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950/60 dark:text-amber-100',
  info: 'border-sky-300 bg-sky-50 text-sky-950 dark:border-sky-800 dark:bg-sky-950/60 dark:text-sky-100',
} as const;

/** A message box; errors are announced to screen readers as they appear. */
export function Alert({
  tone,
  title,
  children,
}: {
  tone: keyof typeof TONES;
  title: string;
  children?: ReactNode;
}) {
  return (
    <div
      role={tone === 'error' ? 'alert' : 'status'}
      className={`rounded-lg border p-4 text-sm ${TONES[tone]}`}
    >
      <p className="font-semibold">{title}</p>
      {children ? <div className="mt-1 space-y-2">{children}</div> : null}
    </div>
  );
}
