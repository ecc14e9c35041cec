import { keyLabel, useKeyName } from '../api/key-names.ts';

/** Who a key is: its holder's name beside its fingerprint ("Dana Ortiz (key 3f9a1c2e)"), or the fingerprint. */
export function KeyLabel({ fingerprint }: { fingerprint: string }) {
  return <>{keyLabel(fingerprint, useKeyName(fingerprint))}</>;
}
