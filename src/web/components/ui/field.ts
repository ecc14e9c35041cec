/** Form field classes shared by the forms: a text input or select, its label, and the hint under it. */
export const inputClass =
  'w-full rounded-md border border-slate-400 bg-white px-3 text-base shadow-sm dark:border-slate-600 dark:bg-slate-900';
export const labelClass = 'block text-sm font-semibold';
export const hintClass = 'text-xs text-slate-600 dark:text-slate-400';
