import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** What a crawler may fetch, read as robots.txt says (longest matching rule wins; `$` anchors the end). */
function allowed(robots: string, path: string): boolean {
  const rules = robots
    .split('\n')
    .map((l) => /^(Allow|Disallow):\s*(\S+)/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ allow: m[1] === 'Allow', pattern: m[2] as string }));
  const matching = rules.filter(({ pattern }) =>
    pattern.endsWith('$') ? path === pattern.slice(0, -1) : path.startsWith(pattern),
  );
  matching.sort((a, b) => b.pattern.length - a.pattern.length);
  return matching[0]?.allow ?? true;
}

describe('public/robots.txt', () => {
  const robots = readFileSync('public/robots.txt', 'utf8');
  it('lets the sign-in page be indexed and keeps every signed-in page and the API out', () => {
    expect(allowed(robots, '/')).toBe(true);
    expect(allowed(robots, '/sign-in')).toBe(true);
    for (const path of [
      '/search',
      '/search?address=1+Main',
      '/review',
      '/review/rv_1',
      '/activity',
      '/api/session',
    ])
      expect(allowed(robots, path), path).toBe(false);
  });
});
