import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * Is the build current? Shared by `npm run build` (which records what it built from) and `npm start` (which
 * builds only when needed). Plain JavaScript on purpose: `npm start` must run with no devDependency.
 *
 * A build is current when its output exists and the fingerprint of its inputs (every file's path and
 * content) is the one recorded when it was built. Content, not modification times: `npm prune`, a Docker
 * COPY or a fresh checkout change times without changing sources, and a start that then thought the build
 * stale would need build tools a pruned install no longer has.
 */

/** What each part of the build is made from; changing any of it (tests excepted) makes the part stale. */
export const INPUTS = {
  web: {
    include: [
      'index.html',
      'public',
      'src/web',
      'src/contract',
      'vite.config.ts',
      'tsconfig.json',
      'package-lock.json',
      'scripts/build.ts',
      'scripts/precompress.ts',
    ],
    exclude: [],
  },
  server: {
    include: ['src', 'tsconfig.json', 'package-lock.json', 'scripts/build.ts'],
    exclude: ['src/web'],
  },
};

/** The compiled server and the record of what was built, relative to the project root. */
export const SERVER_DIR = 'dist-server';
export const SERVER_ENTRY = `${SERVER_DIR}/main.js`;
/** Every file the server runs from: the entry, and the audit trail's follower thread beside it (ADR 016). */
export const SERVER_FILES = [SERVER_ENTRY, `${SERVER_DIR}/audit-follower.js`];
const STAMP = `${SERVER_DIR}/build-stamp.json`;

const isTest = (name) => /\.test\.[cm]?[jt]sx?$/.test(name);

/**
 * @param {string} root
 * @param {'web' | 'server'} part
 * @returns {string}
 */
export function fingerprint(root, part) {
  const { include, exclude } = INPUTS[part];
  const skip = new Set(exclude.map((p) => resolve(root, p)));
  const files = [];
  const visit = (path) => {
    if (skip.has(path) || !existsSync(path)) return;
    if (statSync(path).isDirectory()) for (const e of readdirSync(path)) visit(join(path, e));
    else if (!isTest(path)) files.push(path);
  };
  for (const p of include) visit(resolve(root, p));
  const hash = createHash('sha256');
  // Sorted, with `/` separators: the same tree gives the same fingerprint on any machine.
  for (const rel of files.map((f) => relative(root, f).split(sep).join('/')).sort()) {
    hash.update(`${rel}\0`);
    hash.update(readFileSync(join(root, rel)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** @returns {{ server?: string, web?: Record<string, string> }} */
function readStamp(root) {
  try {
    const stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8'));
    return stamp && typeof stamp === 'object' ? stamp : {};
  } catch {
    return {};
  }
}

/** The SPA may be built elsewhere (DIST_DIR); its record is kept per directory, relative to the root. */
const webKey = (root, distDir) => relative(root, resolve(root, distDir)).split(sep).join('/') || '.';

/**
 * @param {string} root
 * @param {'web' | 'server'} part
 * @param {string} distDir the SPA's directory (DIST_DIR), absolute or relative to root
 * @returns {boolean}
 */
export function isCurrent(root, part, distDir) {
  const stamp = readStamp(root);
  if (part === 'server') {
    return (
      SERVER_FILES.every((f) => existsSync(join(root, f))) && stamp.server === fingerprint(root, 'server')
    );
  }
  const recorded = stamp.web?.[webKey(root, distDir)];
  return existsSync(join(resolve(root, distDir), 'index.html')) && recorded === fingerprint(root, 'web');
}

/**
 * Records that `part` was built from inputs with this fingerprint. Take the fingerprint before building, so
 * a source edited during the build leaves the part stale rather than recorded as current.
 * @param {string} root
 * @param {'web' | 'server'} part
 * @param {string} distDir
 * @param {string} hash
 */
export function recordBuild(root, part, distDir, hash) {
  const stamp = readStamp(root);
  if (part === 'server') stamp.server = hash;
  else stamp.web = { ...stamp.web, [webKey(root, distDir)]: hash };
  mkdirSync(join(root, SERVER_DIR), { recursive: true });
  // Written whole, then renamed: a reader never sees half a stamp.
  const tmp = join(root, `${STAMP}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(stamp, null, 2)}\n`);
  renameSync(tmp, join(root, STAMP));
}
