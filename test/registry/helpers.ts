import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { compileRegistry, formatIssue, RegistrySourceError } from '../../registry/compile.js';

export const fixturesDir = join(projectRoot, 'test', 'fixtures');
export const validFixture = join(fixturesDir, 'registry-valid');

interface Teardown {
  teardown(fn: () => void | Promise<void>): void;
}

/** A temp dir removed when the test ends. */
export function tempDir(t: Teardown, prefix = 'csr-registry-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The tiny valid fixture copied to a temp dir, with the files of each named broken fixture
 * (test/fixtures/registry-<name>/, holding only the files that differ) laid over it.
 */
export function fixtureSources(t: Teardown, ...overlays: string[]): string {
  const dir = join(tempDir(t, 'csr-sources-'), 'sources');
  cpSync(validFixture, dir, { recursive: true });
  for (const name of overlays) cpSync(join(fixturesDir, `registry-${name}`), dir, { recursive: true });
  return dir;
}

/** Every error message of a failed compile (file: path message), or [] when it compiled. */
export async function compileErrors(sourcesDir: string, outDir: string): Promise<string[]> {
  try {
    await compileRegistry({ sourcesDir, outDir });
    return [];
  } catch (error) {
    if (error instanceof RegistrySourceError) return error.issues.map(formatIssue);
    throw error;
  }
}
