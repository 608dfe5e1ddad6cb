/**
 * Every repository path the docs name in backticks (`src/…`, `docs/…`, `registry/…`, `test/…`,
 * `bench/…`, `workers/…`, `scripts/…`, `deploy/…`, `bin/…`) exists, so a file moved or deleted
 * cannot leave a doc pointing at nothing. A path with a placeholder (`src/api/<resource>.ts`,
 * `registry/facts/*.json`) must match at least one file. Paths under a directory .gitignore names
 * (bench/results/: written by the bench) are outputs, not part of the tree, and are not checked.
 */
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';

const PATH = /^(?:src|docs|registry|test|bench|workers|scripts|deploy|bin)\/[^\s`]*$/;
const SKIPPED_DIRS = new Set(['.git', 'node_modules', 'dist', 'build', 'data', '.tap']);

/** The backticked repository paths of a markdown text, outside fenced code blocks. */
export function namedPaths(markdown: string): string[] {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
  const paths = new Set<string>();
  for (const [, span] of prose.matchAll(/`([^`\n]+)`/g)) {
    const path = span.replace(/[#:][\w-]*$/, '');
    if (PATH.test(path)) for (const each of alternatives(path)) paths.add(each);
  }
  return [...paths];
}

/** `src/store/{lmdb,postgres}/x.ts` names two paths. */
function alternatives(path: string): string[] {
  const braces = /\{([^{}]*)\}/.exec(path);
  if (!braces) return [path];
  return braces[1].split(',').flatMap((choice) => alternatives(path.slice(0, braces.index) + choice + path.slice(braces.index + braces[0].length)));
}

const isPattern = (path: string) => /[<*…]/.test(path);

/** A path with placeholders as a regular expression over repository paths (`<x>` and `*` stand for one name or part of one). */
function patternOf(path: string): RegExp {
  const source = path
    .split(/(<[^>]*>|\*|…)/)
    .map((part) => (part === '*' || part === '…' || part.startsWith('<') ? '[^/]+' : part.replace(/[.+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}${path.endsWith('/') ? '' : '(/|$)'}`);
}

let tree: string[] | undefined;
/** Every file and directory of the repository (relative, directories with a trailing slash), read once. */
function repositoryTree(): string[] {
  if (tree) return tree;
  tree = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED_DIRS.has(entry.name)) continue;
      if (entry.isDirectory()) {
        tree!.push(`${prefix}${entry.name}/`);
        walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      } else tree!.push(`${prefix}${entry.name}`);
    }
  };
  walk(projectRoot, '');
  return tree;
}

const ignoredDirs = readFileSync(join(projectRoot, '.gitignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line.endsWith('/') && !line.startsWith('#'));

/** The paths of `markdown` that name nothing in the repository. */
export function missingPaths(markdown: string, root = projectRoot): string[] {
  return namedPaths(markdown).filter((path) => {
    if (ignoredDirs.some((dir) => path.startsWith(dir))) return false;
    if (!isPattern(path)) return !existsSync(join(root, path));
    const pattern = patternOf(path);
    return !repositoryTree().some((entry) => pattern.test(entry));
  });
}

const docs = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(projectRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

t.test('the check finds paths and reports a missing one', async (t) => {
  const text = [
    'See `src/server.ts`, `docs/api.md#caching`, `src/api/<resource>.ts` and `src/store/{lmdb,nosql}/analyses.ts`; `npm test` is no path.',
    '```\nsrc/in-a-code-block.ts\n```',
    'Gone: `src/no-such-module.ts` and `registry/sources/<nothing-like-this>/x.yaml`.',
  ].join('\n');
  t.same(namedPaths(text).sort(), [
    'docs/api.md',
    'registry/sources/<nothing-like-this>/x.yaml',
    'src/api/<resource>.ts',
    'src/no-such-module.ts',
    'src/server.ts',
    'src/store/lmdb/analyses.ts',
    'src/store/nosql/analyses.ts',
  ]);
  t.same(missingPaths(text).sort(), ['registry/sources/<nothing-like-this>/x.yaml', 'src/no-such-module.ts', 'src/store/nosql/analyses.ts']);
  t.same(missingPaths('`registry/sources/<kind>/nothing-*.yaml`'), ['registry/sources/<kind>/nothing-*.yaml'], 'a pattern that matches no file is missing');
  t.same(missingPaths('`registry/sources/signals/<DOMAIN>-<part>.yaml` and `bench/results/`'), [], 'a pattern that matches, and an output directory');
  const named = docs.reduce((n, doc) => n + namedPaths(readFileSync(join(projectRoot, doc), 'utf8')).length, 0);
  t.ok(named > 100, `the docs name ${named} paths`);
});

for (const doc of docs) {
  t.test(`${doc}: every path it names exists`, async (t) => {
    const text = readFileSync(join(projectRoot, doc), 'utf8');
    t.same(missingPaths(text), [], `paths in ${doc} that do not exist`);
  });
}
