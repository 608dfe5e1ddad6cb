/**
 * Writes a compiled index: a fresh LMDB in a temp dir beside the builds, renamed to
 * <registryDir>/<content hash>/, then manifest.json replaced by rename. A reader therefore sees
 * either the old build or the new one, never a half-written one. Older builds are removed; a
 * process that still has one open keeps reading it (the files live on until it closes them).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { MANIFEST_FILE } from '../../src/registry/manifest.js';
import type { RegistryManifest } from '../../src/schemas/registry.js';

const BUILD_DIR = /^[0-9a-f]{64}$/;
const TEMP_DIR = /^tmp-(\d+)-[0-9a-f]+$/;

/**
 * sha256 over the entries in key order. Values are hashed as plain JSON: the compiler builds every
 * record with a fixed key order (source records are re-keyed in schema order when read), so the
 * hash depends on the content only, not on build time, file order or field order in a file.
 */
export function contentHash(entries: Map<string, unknown>): string {
  const hash = createHash('sha256');
  for (const key of [...entries.keys()].sort()) hash.update(`${key}\0${JSON.stringify(entries.get(key))}\n`);
  return hash.digest('hex');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function writeLmdb(dir: string, entries: Map<string, unknown>): Promise<void> {
  const db = open({ path: dir, compression: false });
  try {
    db.transactionSync(() => {
      for (const key of [...entries.keys()].sort()) db.putSync(key, entries.get(key));
    });
  } finally {
    await db.close();
  }
}

/** Writes the build (unless one with this content hash is already in place) and switches to it. */
export async function installBuild(registryDir: string, entries: Map<string, unknown>, manifest: RegistryManifest): Promise<void> {
  mkdirSync(registryDir, { recursive: true });
  const buildDir = join(registryDir, manifest.build);
  if (!existsSync(join(buildDir, 'data.mdb'))) {
    const temp = join(registryDir, `tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      await writeLmdb(temp, entries);
      if (existsSync(buildDir) && !existsSync(join(buildDir, 'data.mdb'))) rmSync(buildDir, { recursive: true, force: true });
      renameSync(temp, buildDir);
    } catch (error) {
      rmSync(temp, { recursive: true, force: true });
      // Another process may have installed the same content meanwhile: that build is as good as ours.
      if (!existsSync(join(buildDir, 'data.mdb'))) throw error;
    }
  }
  const manifestTemp = join(registryDir, `${MANIFEST_FILE}.${process.pid}.tmp`);
  writeFileSync(manifestTemp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(manifestTemp, join(registryDir, MANIFEST_FILE));

  for (const name of readdirSync(registryDir)) {
    const temp = TEMP_DIR.exec(name);
    if ((BUILD_DIR.test(name) && name !== manifest.build) || (temp && !isAlive(Number(temp[1])))) {
      rmSync(join(registryDir, name), { recursive: true, force: true });
    }
  }
}
