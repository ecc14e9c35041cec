import { describe, expect, it } from 'vitest';
import { csvCell } from './csv.ts';

describe('csvCell', () => {
  it.each([
    ['=SUM(A1)', "'=SUM(A1)"],
    ['+1+cmd', "'+1+cmd"],
    ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"], // OWASP's example
    ['-1e3', "'-1e3"],
    [' -1', "' -1"], // not a plain number: a space first
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
    // The reviewer's own signed numbers stay numbers (review finding R17): a spreadsheet never runs them.
    for (const n of ['-5', '+3', '-0.5', '1.5', '-.5']) expect(csvCell(n)).toBe(n);
    expect(csvCell('-0,5', ';')).toBe('-0,5');
    expect(csvCell('-0,5')).toBe('"-0,5"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('Austin, TX')).toBe('"Austin, TX"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=a,b')).toBe('"\'=a,b"');
  });
});
