/**
 * The registry compiler: registry/sources → validated, integrity-checked, derived, indexed LMDB.
 *
 *   read + hash sources → (ifStale: stop if the manifest's source hash matches) → YAML + schema
 *   → integrity → derived mappings, crosswalks, indexes, search → content hash → LMDB + manifest
 *
 * Run as a script: node dist/registry/compile.js [--if-stale] [--sources <dir>] [--out <dir>] [--verbose]
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defaultRegistryDir, defaultSourcesDir } from '../src/paths.js';
import { keys, LAYOUT_VERSION } from '../src/registry/layout.js';
import { Registry } from '../src/registry/registry.js';
import { gapFactsOf } from '../src/gap/gap-index.js';
import { readManifest } from '../src/registry/manifest.js';
import type { RegistryManifest } from '../src/schemas/registry.js';
import { buildIndex } from './lib/build-index.js';
import { buildModel } from './lib/integrity.js';
import { formatIssue, Issues, RegistrySourceError, type SourceIssue } from './lib/issues.js';
import { hashSources, listSourceFiles, parseSources } from './lib/read-sources.js';
import { contentHash, installBuild } from './lib/write-index.js';

export { RegistrySourceError, formatIssue, type SourceIssue };

export interface CompileOptions {
  sourcesDir?: string;
  outDir?: string;
  /** Skip the build when the current manifest was built from the same sources and compiler. */
  ifStale?: boolean;
  /** Build time written into the manifest (tests pin it); defaults to the current time. */
  now?: Date;
}

export interface CompileResult {
  /** The manifest now in place (the existing one when the build was skipped). */
  manifest: RegistryManifest;
  /** true when the previous build was missing or out of date, so a new one was compiled. */
  stale: boolean;
  durationMs: number;
  warnings: SourceIssue[];
}

const here = dirname(fileURLToPath(import.meta.url));

/**
 * A hash of the compiler's own code (this module, lib/, the index layout, the read model and the
 * gap facts it derives through, and source schemas), so
 * a changed compiler makes an existing build stale even when the sources did not change.
 */
function compilerFingerprint(): string {
  const ext = extname(fileURLToPath(import.meta.url));
  const files = [
    join(here, `compile${ext}`),
    ...readdirSync(join(here, 'lib'))
      .filter((name) => name.endsWith(ext))
      .sort()
      .map((name) => join(here, 'lib', name)),
    join(here, '..', 'src', 'registry', `layout${ext}`),
    join(here, '..', 'src', 'registry', `registry${ext}`),
    join(here, '..', 'src', 'gap', `gap-index${ext}`),
    join(here, '..', 'src', 'schemas', `registry-source${ext}`),
    join(here, '..', 'src', 'schemas', `registry${ext}`),
  ];
  const hash = createHash('sha256').update(`layout ${LAYOUT_VERSION}\0`);
  for (const file of files) if (existsSync(file)) hash.update(readFileSync(file));
  return hash.digest('hex');
}

export async function compileRegistry(options: CompileOptions = {}): Promise<CompileResult> {
  const started = performance.now();
  const sourcesDir = resolve(options.sourcesDir ?? defaultSourcesDir);
  const outDir = resolve(options.outDir ?? defaultRegistryDir);
  if (!existsSync(sourcesDir)) throw new Error(`registry sources dir not found: ${sourcesDir}`);

  const files = listSourceFiles(sourcesDir);
  const sourceHash = hashSources(files, compilerFingerprint());
  if (options.ifStale) {
    const current = readManifest(outDir);
    if (current && current.source_hash === sourceHash && existsSync(join(outDir, current.build, 'data.mdb'))) {
      return { manifest: current, stale: false, durationMs: Math.round(performance.now() - started), warnings: [] };
    }
  }

  const issues = new Issues();
  const parsed = parseSources(files, issues);
  const model = buildModel(parsed, issues);
  if (issues.errors.length) throw new RegistrySourceError(issues.errors);

  const { entries, counts } = buildIndex(model);
  const draft: RegistryManifest = {
    registry_version: model.meta.registry_version,
    spec_version: model.meta.spec_version,
    ocsf_version: model.meta.ocsf_version,
    layout_version: LAYOUT_VERSION,
    content_hash: '',
    source_hash: sourceHash,
    built_at: (options.now ?? new Date()).toISOString(),
    build: '',
    counts,
  };
  entries.set(keys.gapFacts, gapFactsOf(Registry.overEntries(entries, draft)));
  const hash = contentHash(entries);
  const manifest: RegistryManifest = { ...draft, content_hash: hash, build: hash };
  await installBuild(outDir, entries, manifest);
  return { manifest, stale: true, durationMs: Math.round(performance.now() - started), warnings: issues.warnings };
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args: string[]): Promise<number> {
  const verbose = args.includes('--verbose');
  try {
    const result = await compileRegistry({
      sourcesDir: argValue(args, '--sources'),
      outDir: argValue(args, '--out'),
      ifStale: args.includes('--if-stale'),
    });
    const { manifest } = result;
    if (!result.stale) {
      console.log(`registry is up to date (${manifest.content_hash.slice(0, 12)}, built ${manifest.built_at})`);
      return 0;
    }
    const counts = Object.entries(manifest.counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    console.log(`registry built in ${result.durationMs} ms (${manifest.content_hash.slice(0, 12)}): ${counts}`);
    if (result.warnings.length) {
      console.log(`${result.warnings.length} warning(s)${verbose ? ':' : ' (--verbose lists them)'}`);
      if (verbose) for (const warning of result.warnings) console.log(`  ${formatIssue(warning)}`);
    }
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
