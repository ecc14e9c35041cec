import { describe, expect, it } from 'vitest';
import sample from '../../../../../public/sample-review.csv?raw';
import { detectHeader, guessColumns, parseCsv, tableRows } from './csv.ts';
import { prepareRows } from './rows.ts';

describe('the sample review', () => {
  it('reads as the upload path reads a file: 31 addresses from the address column, repeats counted', async () => {
    const table = await parseCsv(sample);
    const hasHeader = detectHeader(table.records);
    expect(hasHeader).toBe(true);
    const choice = guessColumns(table.records, hasHeader);
    expect(choice).toMatchObject({ kind: 'single', column: 0 });
    const prepared = prepareRows(tableRows(table, hasHeader, choice));
    expect(prepared.rows).toHaveLength(31);
    // The sample's unknowns include a PO box and a placeholder: refused with their reason, no lookup spent.
    expect(prepared.refused).toBe(2);
    const refused = prepared.rows.filter((r) => r.outcome === 'failed').map((r) => r.error?.message ?? '');
    expect(refused.sort()).toEqual([expect.stringMatching(/PO box/), expect.stringMatching(/placeholder/)]);
    expect(prepared.duplicates).toBe(2);
    const kinds = new Set(table.records.slice(1).map((r) => r[1]));
    expect([...kinds].sort()).toEqual(['ambiguous', 'clean', 'messy', 'repeat', 'typo', 'unknown']);
  });
});
