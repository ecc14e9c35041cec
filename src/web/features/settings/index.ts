export { custodyQueryKey, custodyQueryOptions, useSetCustody } from './api/custody.ts';
export { CustodyOffer, CustodyWaitingNote, OUTLASTS_MINUTES } from './components/custody-notes.tsx';
export { CUSTODY_ANCHOR, CUSTODY_LABEL, CustodySection } from './components/custody-section.tsx';
