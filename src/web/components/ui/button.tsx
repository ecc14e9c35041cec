import type { ButtonHTMLAttributes } from 'react';

const VARIANTS = {
  primary:
    'bg-teal-700 text-white hover:bg-teal-800 disabled:bg-teal-700/60 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400 dark:disabled:bg-teal-500/60',
  secondary:
    'border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 disabled:border-slate-200 disabled:bg-slate-50 disabled:text-slate-400 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800 dark:disabled:border-slate-800 dark:disabled:bg-slate-900 dark:disabled:text-slate-500',
  ghost:
    'text-slate-700 hover:bg-slate-200/70 disabled:bg-transparent disabled:text-slate-400 dark:text-slate-200 dark:hover:bg-slate-800 dark:disabled:bg-transparent dark:disabled:text-slate-500',
} as const;

/**
 * The app's button. A disabled one looks it (a primary one paler, a secondary or ghost one grey) and does not
 * change on hover; its colours change over 150 ms, its focus ring at once: `transition-colors` would fade the
 * ring in from the text's colour (white on a primary button).
 */
export function Button({
  variant = 'primary',
  className = '',
  type = 'button',
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof VARIANTS }) {
  return (
    <button
      type={type}
      className={`inline-flex min-h-10 items-center justify-center gap-2 rounded-md px-4 py-2 text-sm font-semibold transition-[color,background-color,border-color] disabled:cursor-not-allowed ${VARIANTS[variant]} ${className}`}
      {...props}
    />
  );
}
