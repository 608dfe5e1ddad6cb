import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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
export const defaultRegistryDir = process.env.REGISTRY_DIR
  ? resolve(process.env.REGISTRY_DIR)
  : join(projectRoot, 'build', 'registry');

/** What people edit: frameworks, controls, signals, crosswalks, artifact types, templates, tools. */
export const defaultSourcesDir = join(projectRoot, 'registry', 'sources');
