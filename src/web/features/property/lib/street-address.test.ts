import { describe, expect, it } from 'vitest';
import { notAStreetAddress } from './street-address.ts';

describe('notAStreetAddress', () => {
  it.each([
    ['Congress Ave & 6th St', 'intersection'],
    ['Congress Ave & 6th St, Austin, TX', 'intersection'],
    ['6th and Congress', 'intersection'],
    ['corner of Lavaca and 11th', 'intersection'],
    ['Corner of 6th St & Congress Ave, Austin TX 78701', 'intersection'],
    ['intersection of State St and Madison St, Chicago', 'intersection'],
    ['Lamar Blvd at W 5th St', 'intersection'],
    ['Congress Ave/6th St', 'intersection'],
    ['Congress&6th', 'intersection'],
    ['Congress Ave / 6th St', 'intersection'],
    ['Texas State Capitol', 'no_number'],
    ['Willis Tower, Chicago', 'no_number'],
    ['the White House', 'no_number'],
    ['Austin, TX', 'no_number'],
  ] as const)('%s: %s', (text, expected) => {
    expect(notAStreetAddress(text)).toBe(expected);
  });

  it.each([
    '1100 Congress Ave, Austin, TX',
    '100 Main St',
    '100 Town and Country Blvd, Houston, TX',
    '12B Elm St & Co',
    '12-14 Elm St',
    '78701',
    '78701-1234',
    'pi_0abc12x3',
    '48453-271-8281',
    'Unit 301, 140 Waterloo Rd, Boston MA',
    'Apt 2 615 Bourbon St New Orleans',
    '',
  ])('goes to the service: %s', (text) => {
    expect(notAStreetAddress(text)).toBeNull();
  });
});
