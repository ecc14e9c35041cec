import { describe, expect, it } from 'vitest';
import { csvCell } from './csv.ts';

describe('csvCell', () => {
  it.each([
    ['=SUM(A1)', "'=SUM(A1)"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@cmd', "'@cmd"],
    ['  =1', "'  =1"], // after leading spaces
    ['\u3000=1', "'\u3000=1"], // after an ideographic space
    ['\tdata', "'\tdata"],
    ['\rdata', '"\'\rdata"'], // a carriage return first: neutralised, and quoted (it is a line break)
    ['\uff1d1', "'\uff1d1"], // full-width =
    ['\uff0b1', "'\uff0b1"], // full-width +
    ['\uff0d1', "'\uff0d1"], // full-width -
    ['\uff20x', "'\uff20x"], // full-width @
  ])('neutralises %j', (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  it('leaves text, numbers and empty values as they are, quoting only what CSV needs quoted', () => {
    expect(csvCell('1100 Congress Ave')).toBe('1100 Congress Ave');
    expect(csvCell('a-b')).toBe('a-b');
    expect(csvCell(-5)).toBe('-5'); // a number is a number, not a formula
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('Austin, TX')).toBe('"Austin, TX"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=a,b')).toBe('"\'=a,b"');
  });
});
