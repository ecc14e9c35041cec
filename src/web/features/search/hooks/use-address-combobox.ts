import {
  type FormEvent,
  type KeyboardEvent,
  type RefObject,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import type { Property } from '../../../../contract/index.ts';
import { type Option, useSuggestions } from './use-suggestions.ts';

export interface ComboboxOptions {
  /** The address in the URL: the field shows it, and it is the search that has run. */
  value: string;
  onSubmit: (address: string) => void;
  /** A suggestion was chosen: its full record is already known. */
  onPick: (property: Property) => void;
  /** A suggestion became active (arrow keys or hover): a chance to prepare its record. */
  onActivate?: ((property: Property) => void) | undefined;
}

function isTypingTarget(el: EventTarget | null): boolean {
  const t = el as HTMLElement | null;
  return !!t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
}

/** "/" from anywhere on the page (outside another field) focuses the input and selects its text. */
function useSlashShortcut(inputRef: RefObject<HTMLInputElement | null>) {
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !isTypingTarget(e.target)) {
        e.preventDefault();
        inputRef.current?.focus();
        inputRef.current?.select();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [inputRef]);
}

/**
 * On a touch screen the on-screen keyboard would cover the answer: the field lets go once a search is sent,
 * its text shown from the start. With a keyboard and mouse it keeps focus, for the next search.
 */
function leaveFieldOnTouch(input: HTMLInputElement | null) {
  if (!input || !window.matchMedia?.('(pointer: coarse)').matches) return;
  input.blur();
  input.scrollLeft = 0;
}

/**
 * The address field's state and behaviour as an ARIA 1.2 combobox: what is typed, whether the list is open,
 * which option is active, and what each key, pick and submit does. The component only draws it.
 */
export function useAddressCombobox({ value, onSubmit, onPick, onActivate }: ComboboxOptions) {
  const [text, setText] = useState(value);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [emptySubmit, setEmptySubmit] = useState(false);
  // Suggestions are for what the person types, never for text the page put in the field.
  const [typed, setTyped] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const ids = { input: useId(), list: useId(), hint: useId() };
  useEffect(() => {
    setText(value);
    setTyped(false);
  }, [value]);
  useSlashShortcut(inputRef);
  const { options, saving } = useSuggestions({ text, value, typed, open });
  const expanded = open && options.length > 0;
  const close = () => {
    setOpen(false);
    setActive(-1);
  };
  const activate = (i: number) => {
    setActive(i);
    const o = options[i];
    if (o?.kind === 'match') onActivate?.(o.property);
  };
  const choose = (o: Option) => {
    close();
    setText(o.address);
    if (o.kind === 'match') onPick(o.property);
    else onSubmit(o.address);
    leaveFieldOnTouch(inputRef.current);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    close();
    // An empty search would do nothing silently: say what to type instead.
    setEmptySubmit(text.trim() === '');
    setTyped(false);
    if (text.trim() === '') inputRef.current?.focus();
    else {
      onSubmit(text);
      leaveFieldOnTouch(inputRef.current);
    }
  };
  const change = (next: string) => {
    setText(next);
    setTyped(true);
    setEmptySubmit(false);
    setOpen(true);
    setActive(-1);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) =>
    keyDown(e, { open, setOpen, options, active, activate, expanded, choose, close, text, setText });
  return {
    ids,
    inputRef,
    text,
    options,
    active,
    expanded,
    emptySubmit,
    saving,
    optionId: (i: number) => `${ids.list}-${i}`,
    change,
    openList: () => setOpen(true),
    closeList: () => setOpen(false),
    activate,
    choose,
    submit,
    onKeyDown,
  };
}

export type Combobox = ReturnType<typeof useAddressCombobox>;

/** Arrows move through the options (opening the list), Enter picks, Escape closes then clears, Tab leaves. */
function keyDown(
  e: KeyboardEvent<HTMLInputElement>,
  s: {
    open: boolean;
    setOpen: (open: boolean) => void;
    options: Option[];
    active: number;
    activate: (i: number) => void;
    expanded: boolean;
    choose: (o: Option) => void;
    close: () => void;
    text: string;
    setText: (text: string) => void;
  },
) {
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    e.preventDefault();
    if (!s.open) s.setOpen(true);
    if (s.options.length === 0) return;
    const step = e.key === 'ArrowDown' ? 1 : -1;
    const n = s.options.length;
    s.activate(s.active < 0 ? (step === 1 ? 0 : n - 1) : (s.active + step + n) % n);
  } else if (e.key === 'Enter' && s.expanded && s.active >= 0 && s.options[s.active]) {
    e.preventDefault();
    s.choose(s.options[s.active] as Option);
  } else if (e.key === 'Escape') {
    if (s.expanded) {
      e.preventDefault();
      s.close();
    } else if (s.text !== '') {
      e.preventDefault();
      s.setText('');
    }
  } else if (e.key === 'Tab') {
    s.setOpen(false);
  }
}
