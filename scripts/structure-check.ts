import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
// TypeScript 7 (the tree's compiler) has no JS API; 5.9 parses the same syntax.
import type TS from 'typescript5';

// Required, not imported: Node scans a CommonJS file imported as an ES module for its exports, and for
// TypeScript's 9 MB that took 1.3-2.6 s of CPU where require takes 0.7-0.8.
const ts: typeof TS = createRequire(import.meta.url)('typescript5');

/**
 * `node --import tsx scripts/structure-check.ts [folder…]` (npm run lint:structure): the shape the code review
 * measured, held by a check rather than by habit. Over the production TypeScript (.ts, .tsx) under src/, or the
 * folders named, it lists, and fails on:
 *   (a) a file over 400 lines;
 *   (b) a function (declaration, method, constructor, accessor, arrow or function expression, so every
 *       React component) whose body spans over 80 lines, nested functions included;
 *   (c) an import cycle among relative imports, `import type`, `export … from` and `import('…')` included:
 *       a type-only cycle still ties two modules so that neither can be read, moved or tested alone;
 *   (d) a web feature importing another feature's internals: from src/web/features/<f>/, a module of
 *       src/web/features/<g>/ (g ≠ f) may be imported only through `<g>/index.ts`, the feature's public
 *       entry. Features otherwise stay apart (STYLE.md: routes compose them); what one feature lends
 *       another (property's vocabulary, badges and record view, which review shows) is named in that one
 *       file, so a feature can rearrange its folders without breaking a neighbour. src/web/app/ is where
 *       features are composed and may reach into any of them.
 */

export const FILE_LINES_MAX = 400;
export const FUNCTION_LINES_MAX = 80;

/**
 * Not production, so not measured:
 * - tests (`*.test.ts(x)`, `*.spec.ts(x)`): long by nature (one file per subject, many cases);
 * - test helpers: `test-support/` and `testing/` folders, `reference/test-support.ts`, `web/test/`: they run
 *   only under tests (bench/resolver-accuracy.ts runs reference/testing/messy-inputs.ts too, as a fixture);
 * - the generated OpenAPI client types (`npm run openapi:types` writes them; nobody edits them by hand);
 * - declaration files (`*.d.ts`): no code.
 */
const GENERATED = new Set(['src/reference/openapi-client/api-types.ts']);

export function isProduction(path: string): boolean {
  if (!/\.tsx?$/.test(path) || path.endsWith('.d.ts')) return false;
  if (/\.(test|spec)\.tsx?$/.test(path) || GENERATED.has(path)) return false;
  const parts = path.split('/');
  const name = parts.at(-1) ?? '';
  if (name.startsWith('test-support.')) return false;
  return !parts.slice(0, -1).some((dir) => dir === 'test-support' || dir === 'testing' || dir === 'test');
}

export interface Source {
  /** Relative to the repository root, with forward slashes. */
  path: string;
  text: string;
}

export type Kind = 'file' | 'function' | 'cycle' | 'feature';

export interface Offence {
  kind: Kind;
  path: string;
  line: number;
  /** What is wrong, with its figure and the limit: the text after `path:line`. */
  what: string;
}

interface Edge {
  from: string;
  to: string;
  line: number;
  typeOnly: boolean;
}

interface Scanned {
  offences: Offence[];
  edges: Edge[];
}

function lineOf(sf: TS.SourceFile, pos: number): number {
  return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

function countLines(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** A readable name for a function: its own, its variable's or property's, or the call it is passed to. */
function nameOf(fn: TS.SignatureDeclaration, sf: TS.SourceFile): string {
  if (ts.isConstructorDeclaration(fn)) return `${classOf(fn)}constructor`;
  if (fn.name) {
    const own = fn.name.getText(sf);
    return ts.isMethodDeclaration(fn) || ts.isAccessor(fn) ? `${classOf(fn)}${own}` : own;
  }
  const parent = fn.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText(sf);
  }
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression.getText(sf).replace(/\s+/g, '');
    return `callback of ${callee.length > 40 ? `${callee.slice(0, 39)}…` : callee}(…)`;
  }
  if (ts.isExportAssignment(parent)) return 'default export';
  return 'anonymous function';
}

function classOf(member: TS.Node): string {
  const owner = member.parent;
  return (ts.isClassLike(owner) || ts.isObjectLiteralExpression(owner)) && 'name' in owner && owner.name
    ? `${(owner.name as TS.Identifier).text}.`
    : '';
}

function isMeasured(node: TS.Node): node is TS.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node)
  );
}

/** The specifier of a relative import in this node, if it is one, and whether only types cross it. */
function importOf(node: TS.Node): { spec: string; typeOnly: boolean; at: TS.Node } | undefined {
  if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
    const clause = node.importClause;
    const named = clause?.namedBindings;
    const typeOnly =
      !!clause &&
      (clause.isTypeOnly ||
        (!clause.name &&
          !!named &&
          ts.isNamedImports(named) &&
          named.elements.length > 0 &&
          named.elements.every((e) => e.isTypeOnly)));
    return { spec: node.moduleSpecifier.text, typeOnly, at: node };
  }
  if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
    return { spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly, at: node };
  }
  if (
    ts.isCallExpression(node) &&
    node.expression.kind === ts.SyntaxKind.ImportKeyword &&
    node.arguments[0] &&
    ts.isStringLiteralLike(node.arguments[0])
  ) {
    return { spec: node.arguments[0].text, typeOnly: false, at: node };
  }
  if (
    ts.isImportTypeNode(node) &&
    ts.isLiteralTypeNode(node.argument) &&
    ts.isStringLiteral(node.argument.literal)
  ) {
    return { spec: node.argument.literal.text, typeOnly: true, at: node };
  }
  return undefined;
}

/**
 * Where a relative specifier leads, among the known files: as written (the code imports with extensions),
 * then `.js` read as `.ts`, then with an extension or `/index` added. Outside the known files, the joined
 * path itself, so a feature boundary is still judged for an import of a file not measured.
 */
export function resolveImport(from: string, spec: string, known: ReadonlySet<string>): string | undefined {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(from), spec.replace(/[?#].*$/, '')));
  const stem = base.replace(/\.[cm]?jsx?$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find((c) => known.has(c)) ?? base;
}

function scan(source: Source, known: ReadonlySet<string>): Scanned {
  const kind = source.path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(source.path, source.text, ts.ScriptTarget.Latest, true, kind);
  const offences: Offence[] = [];
  const edges: Edge[] = [];

  const lines = countLines(source.text);
  if (lines > FILE_LINES_MAX) {
    offences.push({
      kind: 'file',
      path: source.path,
      line: 1,
      what: `file (${lines} lines / ${FILE_LINES_MAX})`,
    });
  }

  const visit = (node: TS.Node): void => {
    if (isMeasured(node) && node.body) {
      const first = lineOf(sf, node.body.getStart(sf));
      const span = lineOf(sf, node.body.getEnd()) - first + 1;
      if (span > FUNCTION_LINES_MAX) {
        offences.push({
          kind: 'function',
          path: source.path,
          line: lineOf(sf, node.getStart(sf)),
          what: `function ${nameOf(node, sf)} (${span} lines / ${FUNCTION_LINES_MAX})`,
        });
      }
    }
    const imported = importOf(node);
    if (imported) {
      const to = resolveImport(source.path, imported.spec, known);
      if (to) {
        edges.push({
          from: source.path,
          to,
          line: lineOf(sf, imported.at.getStart(sf)),
          typeOnly: imported.typeOnly,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { offences, edges };
}

const FEATURE = /^src\/web\/features\/([^/]+)\/(.*)$/;

/** An import from one web feature into another's internals (anything but its `index.ts(x)`). */
export function featureOffence(edge: Edge): Offence | undefined {
  const from = FEATURE.exec(edge.from);
  const to = FEATURE.exec(edge.to);
  if (!from || !to || from[1] === to[1] || /^index\.tsx?$/.test(to[2] ?? '')) return undefined;
  return {
    kind: 'feature',
    path: edge.from,
    line: edge.line,
    what: `feature ${from[1]} imports ${to[1]}'s internals: ${edge.to} (only ${to[1]}/index.ts)`,
  };
}

/**
 * Every import cycle, once per strongly connected component (Tarjan), each shown as one concrete loop
 * through the component's first module: `a.ts → b.ts (type) → a.ts`, where `(type)` after a module says its
 * import of the next carries only types (b.ts imports only types from a.ts). A module importing itself is a
 * cycle of one.
 */
export function cycleOffences(edges: readonly Edge[]): Offence[] {
  const out = new Map<string, Edge[]>();
  for (const edge of edges) {
    if (!out.has(edge.from)) out.set(edge.from, []);
    out.get(edge.from)!.push(edge);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  // Iterative, so a long import chain cannot overflow the call stack.
  for (const root of [...out.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, index.size);
    low.set(root, index.get(root)!);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      const targets = out.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const to = targets[frame.next++]!.to;
        if (!index.has(to)) {
          index.set(to, index.size);
          low.set(to, index.get(to)!);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = targets.some((e) => e.to === frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.map((component) => {
    const members = new Set(component);
    const start = component[0]!;
    const loop = loopThrough(start, members, out);
    const shown = [start, ...loop.map((e) => e.to)].map((p, i) => (loop[i]?.typeOnly ? `${p} (type)` : p));
    return {
      kind: 'cycle' as const,
      path: start,
      line: loop[0]!.line,
      what: `import cycle ${shown.join(' → ')} (${component.length} module${component.length === 1 ? '' : 's'} / 0)`,
    };
  });
}

/** The shortest loop of imports from start back to start inside one component (breadth first). */
function loopThrough(start: string, members: ReadonlySet<string>, out: ReadonlyMap<string, Edge[]>): Edge[] {
  const via = new Map<string, Edge>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const edge of out.get(node) ?? []) {
      if (!members.has(edge.to)) continue;
      if (edge.to === start) {
        const loop = [edge];
        for (let at = node; at !== start; at = via.get(at)!.from) loop.unshift(via.get(at)!);
        return loop;
      }
      if (!via.has(edge.to)) {
        via.set(edge.to, edge);
        queue.push(edge.to);
      }
    }
  }
  throw new Error(`no loop through ${start}`);
}

/** Every offence among these production sources, sorted by path then line. */
export function checkSources(sources: readonly Source[]): Offence[] {
  const known = new Set(sources.map((s) => s.path));
  const offences: Offence[] = [];
  const edges: Edge[] = [];
  for (const source of sources) {
    const scanned = scan(source, known);
    offences.push(...scanned.offences);
    edges.push(...scanned.edges);
  }
  for (const edge of edges) {
    const offence = featureOffence(edge);
    if (offence) offences.push(offence);
  }
  offences.push(...cycleOffences(edges.filter((e) => known.has(e.to))));
  return offences.sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1));
}

export function formatOffence(o: Offence): string {
  return `${o.path}:${o.line}  ${o.what}`;
}

export function summary(offences: readonly Offence[], files: number): string {
  const count = (kind: Kind) => offences.filter((o) => o.kind === kind).length;
  const figures =
    `${count('file')} files over ${FILE_LINES_MAX} lines, ` +
    `${count('function')} functions over ${FUNCTION_LINES_MAX} lines, ` +
    `${count('cycle')} import cycles, ${count('feature')} imports of another feature's internals`;
  return offences.length === 0
    ? `structure: ${files} production files, no offenders (${figures})`
    : `structure: ${offences.length} offenders in ${files} production files (${figures})`;
}

/**
 * The production sources under these folders of root (src/ unless told), read from disk, untracked new files
 * included. `node --import tsx scripts/structure-check.ts src scripts bench` measures the tools too.
 */
export function productionSources(root: string, folders: readonly string[] = ['src']): Source[] {
  return folders
    .flatMap((folder) =>
      (readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' }) as string[]).map((p) =>
        relative(root, join(root, folder, p))
          .split('\\')
          .join('/'),
      ),
    )
    .filter(isProduction)
    .sort()
    .map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const folders = process.argv.slice(2);
  const sources = productionSources(root, folders.length > 0 ? folders : undefined);
  const offences = checkSources(sources);
  for (const offence of offences) console.log(formatOffence(offence));
  console.log(`${summary(offences, sources.length)}, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = offences.length > 0 ? 1 : 0;
}
