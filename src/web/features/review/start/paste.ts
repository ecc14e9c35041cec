import { notAStreetAddress } from '../../property/index.ts';
import type { RowInput } from './rows.ts';

/** A pasted line that is not looked up: its line number, its text, and why it is not an address. */
export interface SetAside {
  line: number;
  text: string;
  why: string;
}

/** Words that make a line a street even without a number ("Main Street"), in the languages columns know. */
const STREET_WORD =
  /\b(?:st|street|ave|avenue|av|rd|road|blvd|boulevard|dr|drive|ln|lane|way|ct|court|pl|place|ter|terrace|pkwy|parkway|hwy|highway|cir|circle|sq|square|trl|trail|loop|pike|plaza|aly|alley|cres|crescent|mews|calle|avenida|camino|paseo|rue|chemin|impasse|quai|route)\b|(?:stra(?:ss|ß)e|str\.|weg|platz|allee|gasse)\b/iu;
const EMAIL = /[^\s@<>]+@[^\s@<>]+\.[a-z]{2,}/i;
const WEB_LINK = /https?:\/\/|\bwww\./i;
const PHONE_LABEL = /^(?:phone|tel|telephone|cell|mobile|mob|fax|ph|office|direct|main)\b\.?\s*:?/i;
/** "(512) 555-0100", "+1 512.555.0100": only digits and phone punctuation, 7 to 15 digits. */
const PHONE_ONLY = /^\+?[\d\s().-]+$/;
/** "1. ", "2) ", "(3) ", "- ", "• " before a pasted list's items. */
const LIST_MARK = /^\s*(?:\(?\d{1,3}[.)]|[-*•·–])\s+(?=\S)/u;

/**
 * Why a pasted line is not an address, or null when it may be one: a quoted line of a reply ("> …"), an email
 * address, a web link, a phone number, a heading ("Here are the 3 we need:"), or words with no digit and no street word ("Hi all,",
 * "Thanks!", a name in a signature).
 */
export function notAnAddress(line: string): string | null {
  const text = line.trim();
  // "> 3 properties attached": a reply's quoted line, whatever it holds (an address in it is the sender's).
  if (text.startsWith('>')) return 'a quoted line of an e-mail';
  if (EMAIL.test(text)) return 'an email address';
  if (WEB_LINK.test(text)) return 'a web link';
  const digits = text.replace(/\D/g, '').length;
  if (PHONE_LABEL.test(text) && digits >= 7) return 'a phone number';
  if (phoneShaped(text, digits)) return 'a phone number';
  const street = STREET_WORD.test(text);
  if (!street && text.endsWith(':')) return 'a heading';
  if (!street && !/\d/.test(text)) return 'no house number or street';
  // As Search tells it (property's notAStreetAddress): a corner names no property, in a review as on the search screen.
  if (notAStreetAddress(text) === 'intersection') return 'a street corner, not a property';
  return null;
}

/**
 * A bare number shaped as a telephone's: "(512) 555-0100", "+1 512.555.0100", "512-555-0199", "555 0100". A parcel
 * number copied from a record ("48453-271-8281", "01-234-567") is not one: it is looked up as the service finds it.
 */
function phoneShaped(text: string, digits: number): boolean {
  if (!PHONE_ONLY.test(text) || digits < 7 || digits > 15 || !/[\s().-]/.test(text)) return false;
  if (text.startsWith('+') || text.startsWith('(')) return true;
  const groups = text
    .split(/[\s().-]+/)
    .filter(Boolean)
    .map((g) => g.length)
    .join('-');
  return groups === '3-4' || groups === '3-3-4' || groups === '1-3-3-4';
}

/** Whether pasted lines are spreadsheet rows: at least half of the non-blank ones hold a tab. */
export function isTabbed(lines: readonly string[]): boolean {
  const filled = lines.filter((l) => l.trim() !== '');
  return filled.length > 0 && filled.filter((l) => l.includes('\t')).length * 2 >= filled.length;
}

/**
 * Pasted lines as rows, each with its line number; a list's numbers and bullets dropped ("1. 271 Gloucester
 * Rd" is "271 Gloucester Rd"); lines that are not addresses set aside, never sent. Blank lines stay, to be
 * skipped and counted.
 */
export function readPastedLines(lines: readonly string[]): { rows: RowInput[]; setAside: SetAside[] } {
  const rows: RowInput[] = [];
  const setAside: SetAside[] = [];
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') {
      rows.push({ address: '', sourceRow: line });
      return;
    }
    const why = notAnAddress(raw);
    if (why) setAside.push({ line, text: raw.trim(), why });
    else rows.push({ address: raw.replace(LIST_MARK, ''), sourceRow: line });
  });
  return { rows, setAside };
}
