import { Link } from 'react-router';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { EXAMPLE_ADDRESS, type NotAnAddress } from '../lib/street-address.ts';

const WHY: Record<NotAnAddress, string> = {
  intersection: 'is a street corner, and a corner is not a property.',
  no_number: 'has no house number: a landmark’s or a place’s name is not an address the records are kept by.',
};

/**
 * An intersection or a landmark's name, answered before any lookup is spent: what PropLens finds properties
 * by, an example that runs, and a way to ask the service all the same.
 */
export function NotAStreetAddress({
  address,
  kind,
  onSearchAnyway,
}: {
  address: string;
  kind: NotAnAddress;
  onSearchAnyway: () => void;
}) {
  return (
    <Alert tone="info" title={`PropLens looks up street addresses; try ${EXAMPLE_ADDRESS}`}>
      <p>
        “{address}” {WHY[kind]} Search by house number and street with the city and state or the ZIP code, by
        parcel number, or by a ZIP code alone to list its properties. For example:{' '}
        <Link
          to={`/search?${new URLSearchParams({ address: EXAMPLE_ADDRESS })}`}
          className="font-medium text-teal-800 underline underline-offset-2 dark:text-teal-300"
        >
          {EXAMPLE_ADDRESS}
        </Link>
        .
      </p>
      <Button variant="secondary" onClick={onSearchAnyway}>
        Search for “{address}” anyway
      </Button>
    </Alert>
  );
}
