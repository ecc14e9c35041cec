import { describe, expect, it } from 'vitest';
import {
  checkSources,
  FILE_LINES_MAX,
  FUNCTION_LINES_MAX,
  formatOffence,
  isProduction,
  productionSources,
  resolveImport,
  type Source,
  summary,
} from './structure-check.ts';

/** Statements for a body: a function written with these spans `count + 2` lines, braces included. */
function statements(count: number): string {
  return Array.from({ length: count }, (_, i) => `  total += ${i};`).join('\n');
}

/** A function of each shape whose body spans exactly `lines` lines. */
function shapes(lines: number) {
  const inner = statements(lines - 3);
  return {
    declaration: `export function measured(): number {\n  let total = 0;\n${statements(lines - 4)}\n  return total;\n}\n`,
    arrow: `export const measured = (): number => {\n  let total = 0;\n${statements(lines - 4)}\n  return total;\n};\n`,
    'function expression': `export const measured = function (this: void) {\n  let total = 0;\n${inner}\n};\n`,
    method: `export class Measured {\n  run(): void {\n    let total = 0;\n${inner}\n  }\n}\n`,
    callback: `[1].forEach((n) => {\n  let total = n;\n${inner}\n});\n`,
  };
}

function component(lines: number): string {
  const items = Array.from({ length: lines - 6 }, (_, i) => `      <li>{${i}}</li>`).join('\n');
  return `export function Measured() {\n  return (\n    <ul>\n${items}\n    </ul>\n  );\n}\n`;
}

const kinds = (sources: Source[]) => checkSources(sources).map((o) => `${o.kind} ${formatOffence(o)}`);

describe('structure check: file length', () => {
  it(`reports a production file over ${FILE_LINES_MAX} lines, with its figure, and not one at the limit`, () => {
    const lines = (n: number) =>
      `${Array.from({ length: n }, (_, i) => `export const a${i} = ${i};`).join('\n')}\n`;
    expect(kinds([{ path: 'src/bff/long.ts', text: lines(FILE_LINES_MAX + 1) }])).toEqual([
      'file src/bff/long.ts:1  file (401 lines / 400)',
    ]);
    expect(checkSources([{ path: 'src/bff/long.ts', text: lines(FILE_LINES_MAX) }])).toEqual([]);
    // A last line without a newline counts the same as one with it.
    expect(checkSources([{ path: 'src/bff/long.ts', text: lines(FILE_LINES_MAX).trimEnd() }])).toEqual([]);
  });
});

describe('structure check: function length', () => {
  for (const [shape, text] of Object.entries(shapes(FUNCTION_LINES_MAX + 1))) {
    it(`reports a ${shape} whose body spans ${FUNCTION_LINES_MAX + 1} lines, and not one of ${FUNCTION_LINES_MAX}`, () => {
      const offences = checkSources([{ path: 'src/bff/measured.ts', text }]);
      expect(offences).toHaveLength(1);
      expect(offences[0]).toMatchObject({ kind: 'function', path: 'src/bff/measured.ts' });
      expect(offences[0]!.what).toMatch(/ \(81 lines \/ 80\)$/);
      const clean = shapes(FUNCTION_LINES_MAX)[shape as keyof ReturnType<typeof shapes>];
      expect(checkSources([{ path: 'src/bff/measured.ts', text: clean }])).toEqual([]);
    });
  }

  it('names the function and gives the line it starts on', () => {
    const text = `// a comment\n\n${shapes(90).declaration}`;
    expect(kinds([{ path: 'src/bff/measured.ts', text }])).toEqual([
      'function src/bff/measured.ts:3  function measured (90 lines / 80)',
    ]);
    expect(kinds([{ path: 'src/bff/measured.ts', text: shapes(90).method }])).toEqual([
      'function src/bff/measured.ts:2  function Measured.run (90 lines / 80)',
    ]);
  });

  it('measures a React component in a .tsx file', () => {
    expect(kinds([{ path: 'src/web/app/measured.tsx', text: component(FUNCTION_LINES_MAX + 1) }])).toEqual([
      'function src/web/app/measured.tsx:1  function Measured (81 lines / 80)',
    ]);
    expect(checkSources([{ path: 'src/web/app/measured.tsx', text: component(FUNCTION_LINES_MAX) }])).toEqual(
      [],
    );
  });

  it('counts a function with the functions nested in it, and reports each that is over', () => {
    const nested = `export function outer() {\n  let total = 0;\n${shapes(81).callback}\n  return total;\n}\n`;
    const offences = checkSources([{ path: 'src/bff/nested.ts', text: nested }]);
    expect(offences.map((o) => o.what)).toEqual([
      'function outer (86 lines / 80)',
      'function callback of [1].forEach(…) (81 lines / 80)',
    ]);
  });
});

describe('structure check: import cycles', () => {
  const a = 'src/bff/a.ts';
  const b = 'src/bff/b.ts';

  it('reports a two-module cycle of value imports once, as a loop', () => {
    const offences = kinds([
      { path: a, text: `import { b } from './b.ts';\nexport const a = () => b;\n` },
      { path: b, text: `\nimport { a } from './a.ts';\nexport const b = () => a;\n` },
    ]);
    expect(offences).toEqual([
      'cycle src/bff/a.ts:1  import cycle src/bff/a.ts → src/bff/b.ts → src/bff/a.ts (2 modules / 0)',
    ]);
  });

  it('reports a cycle that only types close, and marks the type-only import', () => {
    for (const typeImport of [
      `import type { A } from './a.ts';`,
      `import { type A } from './a.ts';`,
      `export type { A } from './a.ts';`,
      `type Later = import('./a.ts').A;`,
    ]) {
      const offences = kinds([
        {
          path: a,
          text: `import { b } from './b.ts';\nexport interface A { n: number }\nexport const a = b;\n`,
        },
        { path: b, text: `${typeImport}\nexport const b = 1;\n` },
      ]);
      expect(offences, typeImport).toEqual([
        'cycle src/bff/a.ts:1  import cycle src/bff/a.ts → src/bff/b.ts (type) → src/bff/a.ts (2 modules / 0)',
      ]);
    }
  });

  it('reports cycles through re-exports, dynamic imports and longer loops, resolving extensions and index files', () => {
    const offences = kinds([
      { path: 'src/bff/x/index.ts', text: `export * from '../y.ts';\n` },
      { path: 'src/bff/y.ts', text: `export const y = () => import('./z');\n` },
      { path: 'src/bff/z.tsx', text: `import { x } from './x';\nexport const z = x;\n` },
    ]);
    expect(offences).toEqual([
      'cycle src/bff/x/index.ts:1  import cycle src/bff/x/index.ts → src/bff/y.ts → src/bff/z.tsx → src/bff/x/index.ts (3 modules / 0)',
    ]);
  });

  it('reports nothing when the imports run one way', () => {
    expect(
      checkSources([
        {
          path: a,
          text: `import { b } from './b.ts';\nimport type { B } from './b.ts';\nexport const a: B = b;\n`,
        },
        {
          path: b,
          text: `export type B = number;\nexport const b = 1;\nimport { readFileSync } from 'node:fs';\n`,
        },
      ]),
    ).toEqual([]);
  });

  it('leaves out modules that are not production (a test importing back is no cycle)', () => {
    expect(isProduction('src/bff/a.test.ts')).toBe(false);
    expect(
      checkSources([{ path: a, text: `export const a = 1;\n` }].filter((s) => isProduction(s.path))),
    ).toEqual([]);
  });
});

describe('structure check: feature boundaries', () => {
  const vocabulary = {
    path: 'src/web/features/property/lib/vocabulary.ts',
    text: 'export const WORD = 1;\n',
  };
  const entry = {
    path: 'src/web/features/property/index.ts',
    text: `export { WORD } from './lib/vocabulary.ts';\n`,
  };

  it("reports a feature importing another feature's internals, value or type", () => {
    const offences = kinds([
      vocabulary,
      entry,
      {
        path: 'src/web/features/review/results/columns.tsx',
        text: `import { WORD } from '../../property/lib/vocabulary.ts';\nimport type { X } from '../../search/api/x.ts';\nexport const w = WORD;\n`,
      },
    ]);
    expect(offences).toEqual([
      "feature src/web/features/review/results/columns.tsx:1  feature review imports property's internals: src/web/features/property/lib/vocabulary.ts (only property/index.ts)",
      "feature src/web/features/review/results/columns.tsx:2  feature review imports search's internals: src/web/features/search/api/x.ts (only search/index.ts)",
    ]);
  });

  it("allows another feature's public entry, a feature's own modules, and the app composing features", () => {
    expect(
      checkSources([
        vocabulary,
        entry,
        {
          path: 'src/web/features/review/results/columns.tsx',
          text: `import { WORD } from '../../property/index.ts';\nimport { x } from '../run/x.ts';\nexport const w = WORD + x;\n`,
        },
        { path: 'src/web/features/review/run/x.ts', text: 'export const x = 1;\n' },
        {
          path: 'src/web/features/property/components/badge.tsx',
          text: `import { WORD } from '../lib/vocabulary.ts';\nexport const b = WORD;\n`,
        },
        {
          path: 'src/web/app/routes/review.tsx',
          text: `import { WORD } from '../../features/property/lib/vocabulary.ts';\nexport const r = WORD;\n`,
        },
      ]),
    ).toEqual([]);
  });
});

describe('structure check: what is measured and how it is reported', () => {
  it('measures production sources and leaves out tests, test helpers, generated types and declarations', () => {
    for (const path of [
      'src/bff/routes/session.ts',
      'src/web/app/layouts.tsx',
      'src/web/features/review/results/stats.ts',
      'src/bff/testing-window.ts',
    ]) {
      expect(isProduction(path), path).toBe(true);
    }
    for (const path of [
      'src/bff/routes/session.test.ts',
      'src/web/app/layouts.test.tsx',
      'src/web/a.spec.tsx',
      'src/bff/test-support/harness.ts',
      'src/reference/test-support.ts',
      'src/reference/testing/messy-inputs.ts',
      'src/web/features/review/testing/fake-review-server.ts',
      'src/web/test/utils.tsx',
      'src/reference/openapi-client/api-types.ts',
      'src/web/vite-env.d.ts',
      'src/web/styles.css',
    ]) {
      expect(isProduction(path), path).toBe(false);
    }
  });

  it('resolves only relative specifiers, trying the code base’s extensions', () => {
    const known = new Set(['src/a/b.ts', 'src/a/c.tsx', 'src/a/d/index.ts']);
    expect(resolveImport('src/a/x.ts', './b.ts', known)).toBe('src/a/b.ts');
    expect(resolveImport('src/a/x.ts', './b.js', known)).toBe('src/a/b.ts');
    expect(resolveImport('src/a/x.ts', './c', known)).toBe('src/a/c.tsx');
    expect(resolveImport('src/a/x.ts', './d', known)).toBe('src/a/d/index.ts');
    expect(resolveImport('src/a/x.ts', '../styles.css?inline', known)).toBe('src/styles.css');
    expect(resolveImport('src/a/x.ts', 'zod', known)).toBeUndefined();
  });

  it('sorts offenders by path and line and sums them up by kind', () => {
    const long = shapes(81).declaration;
    const offences = checkSources([
      { path: 'src/b.ts', text: long },
      { path: 'src/a.ts', text: `\n\n${long}${long.replace('measured', 'again')}` },
    ]);
    expect(offences.map(formatOffence)).toEqual([
      'src/a.ts:3  function measured (81 lines / 80)',
      'src/a.ts:84  function again (81 lines / 80)',
      'src/b.ts:1  function measured (81 lines / 80)',
    ]);
    expect(summary(offences, 2)).toBe(
      "structure: 3 offenders in 2 production files (0 files over 400 lines, 3 functions over 80 lines, 0 import cycles, 0 imports of another feature's internals)",
    );
    expect(summary([], 2)).toMatch(/^structure: 2 production files, no offenders/);
  });

  it('reads the production modules of src/ from disk (or of the folders named), and no test', () => {
    const root = new URL('..', import.meta.url).pathname;
    const paths = productionSources(root).map((s) => s.path);
    expect(paths).toContain('src/bff/routes/session.ts');
    expect(paths).toContain('src/web/app/layouts.tsx');
    expect(paths.every((p) => p.startsWith('src/') && isProduction(p))).toBe(true);
    expect(paths.some((p) => p.includes('.test.'))).toBe(false);
    const tools = productionSources(root, ['scripts']).map((s) => s.path);
    expect(tools).toContain('scripts/structure-check.ts');
    expect(tools).not.toContain('scripts/structure-check.test.ts');
  });
});
