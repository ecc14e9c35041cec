/** Types for build-stamp.js, which stays plain JavaScript so that `npm start` needs no devDependency. */
export type BuildPart = 'web' | 'server';
export const INPUTS: Record<BuildPart, { include: string[]; exclude: string[] }>;
export const SERVER_DIR: string;
export const SERVER_ENTRY: string;
export const SERVER_FILES: string[];
export function fingerprint(root: string, part: BuildPart): string;
export function isCurrent(root: string, part: BuildPart, distDir: string): boolean;
export function recordBuild(root: string, part: BuildPart, distDir: string, hash: string): void;
