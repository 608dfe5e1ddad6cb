import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RegistryManifest } from '../schemas/registry.js';

export const MANIFEST_FILE = 'manifest.json';

/** The manifest of the current build in a registry dir, or undefined when there is none yet. */
export function readManifest(registryDir: string): RegistryManifest | undefined {
  let text: string;
  try {
    text = readFileSync(join(registryDir, MANIFEST_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as RegistryManifest;
}
