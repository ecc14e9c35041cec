import { describe, expect, it } from 'vitest';
import { createProgress } from './progress.ts';

const stream = (isTTY: boolean) => {
  const out: string[] = [];
  return { out, s: { isTTY, write: (t: string) => out.push(t) } as unknown as NodeJS.WriteStream };
};

describe('build progress', () => {
  it('draws a bar in place on a terminal', () => {
    const { out, s } = stream(true);
    const progress = createProgress('Building', s);
    progress(500, 1000);
    progress(1000, 1000);
    expect(out[0]).toMatch(/^\rBuilding \[#{15}\.{15}\] {2}50% 500\/1,000/);
    expect(out.join('')).toMatch(/100% 1,000\/1,000 .*s\n$/);
  });

  it('writes a line every 10% elsewhere (CI logs, pipes)', () => {
    const { out, s } = stream(false);
    const progress = createProgress('Building', s);
    for (let done = 0; done <= 1000; done += 50) progress(done, 1000);
    expect(out).toHaveLength(11);
    expect(out[5]).toMatch(/^Building: 50% \(500\/1,000\)/);
  });
});
