import { keyLabel, useKeyName } from '../api/key-names.ts';

/**
 * Who a key is: its holder's name beside its fingerprint ("Dana Ortiz (key 3f9a1c2e)"), or the fingerprint. A name
 * typed without spaces (an e-mail address) may break anywhere rather than push the page wider than the screen.
 */
export function KeyLabel({ fingerprint }: { fingerprint: string }) {
  return <span className="[overflow-wrap:anywhere]">{keyLabel(fingerprint, useKeyName(fingerprint))}</span>;
}
