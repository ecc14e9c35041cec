/**
 * The Activity text filter's one folding rule, applied in JS to the text an entry is searched by (when it is
 * written, and by migration 0007 to the entries written before it) and to every text searched for, so neither
 * database ever folds case: SQLite's lower() folds ASCII only, PostgreSQL's follows the database's locale (C: ASCII
 * only), and FTS5's trigram tokenizer folds by its own table. Compared as codepoints, a text found at once is found
 * the same after the index caught up, on either database.
 *
 * The rule, close to Unicode's NFKC_Casefold:
 * - NFKC first: a composed and a decomposed é are one text (NFC), and so are full-width digits and letters, or the
 *   ligature ﬁ and fi (an address typed through a CJK input method, or pasted from a PDF);
 * - then lower, upper, lower case: what full case folding does and toLowerCase alone does not, ß, ẞ and SS all
 *   become ss (Straße is found by STRASSE, and the other way round);
 * - σ for the final ς, which lower case writes at the end of a word only: without it ΟΔΟΣ typed at the end of a
 *   search would not be found inside ΟΔΟΣΑ (a substring has to fold as it folds inside the whole);
 * - i for i with a dot above, what İ lowers to: İSTANBUL is found by istanbul (and I, ı and İ all fold to i, which
 *   is more than Unicode's folding does, and what someone without a Turkish keyboard types);
 * - a space for a control character, so no text folds to one: the separator of the two texts an entry is found
 *   by (below) is never inside a text searched for, and no search matches across it;
 * - NFKC again, as case mapping can leave a letter and its mark apart (ǰ).
 * Accents are kept: "ete" does not find "été".
 */
export function fold(text: string): string {
  // Printable ASCII (nearly every address and property id): NFKC leaves it as it is, and lower case once is the
  // whole rule. Every answer's entry is folded on its way to the commit.
  return PRINTABLE_ASCII.test(text) ? text.toLowerCase() : foldAny(text);
}

/** The rule above, step by step, for any text. */
export function foldAny(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replaceAll('ς', 'σ')
    .replaceAll('i\u0307', 'i')
    .replace(CONTROL, ' ')
    .normalize('NFKC');
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Between the two texts an entry is found by: fold() leaves no control character, so no search spans it. */
const SEPARATOR = '\n';

/**
 * What an entry is found by: the address asked and the property id, folded, or null when it has neither (such an
 * entry is never found by a text, and never indexed).
 */
export function searchTextOf(e: { query: string | null; property_id: string | null }): string | null {
  const texts = [e.query, e.property_id].filter((t) => t !== null);
  return texts.length === 0 ? null : texts.map(fold).join(SEPARATOR);
}
