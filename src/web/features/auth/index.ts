/**
 * What the auth feature lends other features: the session, and who a key is (its holder's name beside its fingerprint). The one
 * module another feature may import from here (scripts/structure-check.ts holds it).
 */
export { sessionQueryOptions } from './api/get-session.ts';
export { keyLabel, keyNamesQueryOptions, useKeyName, useKeyNames, useSetKeyName } from './api/key-names.ts';
export { KeyLabel } from './components/key-label.tsx';
