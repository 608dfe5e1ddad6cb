/**
 * The layer order of src/ (../docs/architecture.md): the domain layers never import the HTTP layer
 * or the route handlers, the HTTP layer never imports the handlers (the route table lives with
 * them in src/api and is handed to the router by server.ts), and only src/http/uws.ts imports
 * uWebSockets.js. Read from the TypeScript sources, so a new file is held to it at once.
 */
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../src/paths.js';

const src = join(projectRoot, 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Module specifiers a file imports (static and dynamic), relative ones resolved to src/-relative paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
  return specifiers.map((s) => (s.startsWith('.') ? relative(src, join(file, '..', s)).replace(/\\/g, '/') : s));
}

const sources = files(src).map((file) => ({ path: relative(src, file).replace(/\\/g, '/'), imports: importsOf(file) }));
const layerOf = (path: string) => path.split('/')[0];
const DOMAIN_LAYERS = ['core', 'schemas', 'registry', 'gap', 'ingest', 'export', 'store', 'limits', 'validation', 'custom-frameworks', 'posture', 'webhooks'];

t.test('the source tree is read', async (t) => {
  t.ok(sources.length > 100, `${sources.length} files`);
  t.ok(
    sources.some((s) => s.imports.some((i) => i.startsWith('http/'))),
    'relative imports are resolved',
  );
});

t.test('domain layers never import the HTTP layer or the handlers', async (t) => {
  const upward = sources
    .filter((s) => DOMAIN_LAYERS.includes(layerOf(s.path)))
    .flatMap((s) => s.imports.filter((i) => i.startsWith('http/') || i.startsWith('api/')).map((i) => `${s.path} → ${i}`));
  t.same(upward, []);
});

t.test('the HTTP layer never imports the handlers', async (t) => {
  const upward = sources.filter((s) => layerOf(s.path) === 'http').flatMap((s) => s.imports.filter((i) => i.startsWith('api/')).map((i) => `${s.path} → ${i}`));
  t.same(upward, []);
});

t.test('only src/http/uws.ts imports uWebSockets.js', async (t) => {
  const importers = sources.filter((s) => s.imports.includes('uWebSockets.js')).map((s) => s.path);
  t.same(importers, ['http/uws.ts']);
});
