import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding package.json. Found by walking up from this module, so the answer is
 * the same whether the code runs from src/ (tests, ts tooling) or from dist/src/.
 */
function findProjectRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
}

export const projectRoot = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

/** Where the compiled registry (manifest.json + LMDB builds) lives; REGISTRY_DIR overrides. */
export const defaultRegistryDir = process.env.REGISTRY_DIR ? resolve(process.env.REGISTRY_DIR) : join(projectRoot, 'build', 'registry');

/** What people edit: frameworks, controls, signals, crosswalks, artifact types, templates, tools. */
export const defaultSourcesDir = join(projectRoot, 'registry', 'sources');

/** Where the data directory came from, so that messages can name the variable or the default. */
export interface DataDirChoice {
  path: string;
  source: 'DATA_DIR' | 'default';
}

/**
 * The data directory (accounts, keys, analyses) as the server and the csr CLI both resolve it:
 * DATA_DIR, or data/ in the project. A relative DATA_DIR is taken from the project root, not the
 * working directory: npm runs the server from the root while csr runs wherever it is typed, and a
 * key made in one directory must be the key the server reads (docs/operations.md).
 */
export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): DataDirChoice {
  const value = env.DATA_DIR?.trim();
  if (!value) return { path: join(projectRoot, 'data'), source: 'default' };
  return { path: isAbsolute(value) ? resolve(value) : resolve(projectRoot, value), source: 'DATA_DIR' };
}

/** Compact fact tables (rule ids, titles, tool claims) the generators read: registry/generate. */
export const defaultFactsDir = join(projectRoot, 'registry', 'facts');
