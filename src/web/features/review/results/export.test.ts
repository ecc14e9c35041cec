import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXPORT_ATTRIBUTE_COLUMNS } from '../../../../contract/index.ts';
import { ATTRIBUTES } from '../../property/lib/vocabulary.ts';
import { localDay, reviewExportPath, saveFile } from './export.ts';

describe('reviewExportPath', () => {
  it('asks for the run on screen and the reader’s own day, the id escaped', () => {
    expect(reviewExportPath('rv_1', 'csv', { run: 2, today: '2026-11-01' })).toBe(
      '/api/reviews/rv_1/export.csv?run=2&today=2026-11-01',
    );
    expect(reviewExportPath('a/b?c', 'json', { today: '2026-11-01' })).toBe(
      '/api/reviews/a%2Fb%3Fc/export.json?today=2026-11-01',
    );
  });

  it('takes the day from the reader’s calendar, not UTC', () => {
    // 00:30 local on 2 November is still 1 November in UTC west of Greenwich and 2 November here.
    expect(localDay(new Date(2026, 10, 2, 0, 30))).toBe('2026-11-02');
    expect(localDay(new Date(2026, 0, 9, 23, 59))).toBe('2026-01-09');
  });
});

describe('the export’s attribute columns', () => {
  it('are the record’s attributes in the record’s order, named as the vocabulary names them', () => {
    expect(EXPORT_ATTRIBUTE_COLUMNS.map(({ field, column }) => [field, column])).toEqual(
      ATTRIBUTES.map(({ field, column }) => [field, column]),
    );
  });
});

describe('saveFile', () => {
  const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
  afterEach(() => {
    URL.createObjectURL = original.create;
    URL.revokeObjectURL = original.revoke;
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('saves through a Blob URL under the given name and frees the URL', async () => {
    vi.useFakeTimers();
    // jsdom has no Blob URLs: stand-ins that record what they were given.
    const createObjectURL = vi.fn((_: Blob) => 'blob:proplens/1');
    const revokeObjectURL = vi.fn();
    URL.createObjectURL = createObjectURL;
    URL.revokeObjectURL = revokeObjectURL;
    const clicked: { href: string; download: string }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.href, download: this.download });
    });
    const blob = new Blob(['a,b\r\n'], { type: 'text/csv' });
    saveFile(blob, 'x.csv');
    expect(clicked).toEqual([{ href: 'blob:proplens/1', download: 'x.csv' }]);
    expect(createObjectURL).toHaveBeenCalledWith(blob);
    expect(revokeObjectURL).not.toHaveBeenCalled();
    vi.runAllTimers();
    expect(revokeObjectURL).toHaveBeenCalledWith('blob:proplens/1');
  });
});
