#!/usr/bin/env node
/**
 * Brings dist/ (the compiled TypeScript) and build/registry (the registry index) up to date, and
 * costs next to nothing when they already are: `npm start` on an unchanged tree must be ready in
 * about the time the built server takes (docs/benchmarks.md, "Start-up").
 *
 * Plain JavaScript on purpose: it runs before anything is compiled, and on production installs
 * that have no TypeScript at all.
 *
 *   node scripts/ensure-built.js start     before npm start / npm test: a missing build is an error
 *   node scripts/ensure-built.js prepare   after npm ci: without TypeScript (npm ci --omit=dev) it
 *                                           says how to get the built files and exits 0
 *
 * Both steps are gated on file times first (a stat per file, no compiler loaded), then defer to
 * the exact tools: `tsc --build` (incremental, dist/tsconfig.tsbuildinfo) and
 * `csr registry build --if-stale` (a content hash of the sources and the compiler).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const mode = process.argv[2] ?? 'start';
if (mode !== 'start' && mode !== 'prepare') {
  process.stderr.write(`ensure-built: unknown mode ${JSON.stringify(mode)} (expected start or prepare)\n`);
  process.exit(2);
}

const BUILD_INFO = join(root, 'dist', 'tsconfig.tsbuildinfo');
const SERVER = join(root, 'dist', 'src', 'server.js');
const CLI = join(root, 'dist', 'src', 'cli', 'csr.js');
const MANIFEST = join(root, 'build', 'registry', 'manifest.json');
/** What tsconfig.json compiles (its "include": registry/*.ts are listed below), and the config itself. */
const TYPESCRIPT_INPUTS = [
  'src',
  'workers',
  'registry/lib',
  'bench',
  'test',
  'tsconfig.json',
  ...readdirSync(join(root, 'registry'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `registry/${name}`),
];

/**
 * The newest modification time under the given paths. Directories count too: deleting a file
 * changes its directory's time, which a scan of the remaining files would miss.
 */
function newestTime(paths, keep = () => true) {
  let newest = 0;
  const visit = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    newest = Math.max(newest, stat.mtimeMs);
    if (!stat.isDirectory()) return;
    for (const entry of readdirSync(path)) {
      const child = join(path, entry);
      if (entry === 'node_modules' || entry === 'results') continue;
      if (statSync(child).isDirectory() || keep(child)) visit(child);
    }
  };
  for (const path of paths) visit(join(root, path));
  return newest;
}

function timeOf(path) {
  return existsSync(path) ? statSync(path).mtimeMs : -1;
}

function typescriptCompiler() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

function run(args, what) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`ensure-built: ${what} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(result.status || 1);
  }
}

const compiler = typescriptCompiler();
const sourcesNewer = newestTime(TYPESCRIPT_INPUTS, (path) => /\.(ts|json)$/.test(path)) > timeOf(BUILD_INFO);
if (compiler && (sourcesNewer || !existsSync(SERVER))) {
  run([compiler, '--build'], 'tsc --build');
} else if (!compiler && !existsSync(SERVER)) {
  const advice =
    'TypeScript is not installed (a production install: npm ci --omit=dev) and dist/ is missing. ' +
    'Build on a machine with dev dependencies (npm ci && npm run build, then npm prune --omit=dev), ' +
    'or copy dist/ and build/registry/ from such a build: docs/operations.md, "Production install".';
  if (mode === 'prepare') {
    process.stderr.write(`ensure-built: skipped. ${advice}\n`);
    process.exit(0);
  }
  process.stderr.write(`ensure-built: cannot start. ${advice}\n`);
  process.exit(1);
}

// The index depends on the sources and on the compiler's own code (registry/compile.ts fingerprints it).
const registryInputs = newestTime(['registry/sources', 'dist/registry', 'dist/src/registry', 'dist/src/schemas']);
if (registryInputs > timeOf(MANIFEST)) {
  run([CLI, 'registry', 'build', '--if-stale'], 'registry build');
  // The hash check found it current (or rebuilt it): mark the time so the next start skips the check.
  const now = new Date();
  utimesSync(MANIFEST, now, now);
}
