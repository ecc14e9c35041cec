import { describe, expect, it } from 'vitest';
import { addressProblem, askedKey, restoreZip, zipCell } from './address.ts';

describe('addressProblem', () => {
  it.each([
    ['PO Box 123, Austin, TX 78701', /PO box is a mailing address/],
    ['P.O. Box 9, Boise ID', /PO box/],
    ['N/A', /placeholder/],
    ['TBD', /placeholder/],
    ['unknown', /placeholder/],
    ['10 Downing St, London, United Kingdom', /outside the United States/],
    ['100 Queen St W, Toronto, ON M5H 2N2', /outside the United States/],
    ['https://maps.example.com/?q=1+Main', /web link/],
    ['---', /No letters or numbers/],
  ])('says why "%s" cannot be a US property address', (input, why) => {
    expect(addressProblem(input)).toMatch(why);
  });

  it.each([
    '1100 Congress Ave, Austin, TX 78701',
    '12 Canada Dr, Springfield, IL',
    '1 Box Elder Rd, Ogden, UT',
    'Main St',
    '78701',
    '100 Main St',
  ])('leaves "%s" to the service', (input) => {
    expect(addressProblem(input)).toBeNull();
  });
});

describe('a ZIP that lost its leading zero', () => {
  it('is restored after a state code only', () => {
    expect(restoreZip('24 Main St, Chatham, NJ 7976')).toBe('24 Main St, Chatham, NJ 07976');
    expect(restoreZip('1 Elm St, Boston MA 2108-1234')).toBe('1 Elm St, Boston MA 02108-1234');
    expect(restoreZip('1100 Congress Ave, Austin, TX 78701')).toBe('1100 Congress Ave, Austin, TX 78701');
    expect(restoreZip('Apt 4 1234')).toBe('Apt 4 1234');
    expect(restoreZip('100 Main St 1234')).toBe('100 Main St 1234');
    expect(zipCell('7976')).toBe('07976');
    expect(zipCell('501')).toBe('00501');
    expect(zipCell('78701')).toBe('78701');
    expect(zipCell('N/A')).toBe('N/A');
  });

  it('is restored after any state, DC or territory code, and after no other two letters', () => {
    const places =
      'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR GU VI AS MP'.split(
        ' ',
      );
    for (const code of places) expect(restoreZip(`1 Calle Sol, Ponce, ${code} 731`)).toMatch(/ 00731$/);
    for (const code of ['ON', 'UK', 'XX']) expect(restoreZip(`1 Main St, ${code} 731`)).toMatch(/ 731$/);
  });
});

describe('what a review row asks (askedKey)', () => {
  it('is one key for one parcel however its separators are written, and for one address however it is spaced', () => {
    const keys = ['45019-041-7397', '45019 041 7397', '45019.041.7397', ' 45019041 7397 '].map((p) =>
      askedKey('', p),
    );
    expect(new Set(keys)).toEqual(new Set(['parcel:450190417397']));
    expect(askedKey('', 'r-12a')).toBe(askedKey('', 'R12A'));
    expect(askedKey('', '12-34')).not.toBe(askedKey('', '12-35'));
    expect(askedKey('1 Main St , Austin', '99')).toBe(askedKey('1 MAIN ST, Austin', undefined));
    expect(askedKey('  ', ' - ')).toBeNull();
    expect(askedKey('', undefined)).toBeNull();
  });

  it('is one key for the spellings of one address a tape holds: commas, a final stop, St or Street (R27)', () => {
    const spellings = [
      '40 W 6th St, Yalaha, FL 34797',
      '40 W 6th St Yalaha FL 34797',
      '40 W 6th Street, Yalaha, FL 34797',
      '40 w 6th st., yalaha, fl 34797.',
      ' 40 W 6TH STREET , YALAHA , FL  34797 ',
    ];
    expect(new Set(spellings.map((a) => askedKey(a, undefined)))).toEqual(
      new Set(['40 w 6th st yalaha fl 34797']),
    );
    expect(askedKey('12 Oak Avenue Apartment 4, Waco, TX', undefined)).toBe(
      askedKey('12 Oak Ave Apt 4 Waco TX', undefined),
    );
    // What tells two properties apart stays: the number, the unit, the direction, the ZIP code.
    expect(askedKey('40 W 6th St Apt 2', undefined)).not.toBe(askedKey('40 W 6th St Apt 3', undefined));
    expect(askedKey('40 W 6th St', undefined)).not.toBe(askedKey('40 E 6th St', undefined));
    expect(askedKey('40 W 6th St 34797', undefined)).not.toBe(askedKey('40 W 6th St 34798', undefined));
  });
});
