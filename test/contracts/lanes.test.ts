/**
 * The full lane is `npm test`'s files plus those package.json's tap.exclude names (README, "Quick
 * start"; docs/architecture.md). Each name there must be a test that exists: a file renamed or
 * removed would otherwise leave a stale entry, or move a slow test into the fast lane unnoticed.
 */
import t from 'tap';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';

const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  tap: { include: string[]; exclude: string[] };
};

t.test('every full-lane entry names a test file or a folder of them', async (t) => {
  const entries = pkg.tap.exclude.filter((pattern) => pattern !== '**/node_modules/**');
  t.ok(entries.length > 0, 'the fast lane leaves something out');
  for (const entry of entries) {
    const source = entry.replace(/^dist\//, '');
    if (source.endsWith('/**')) {
      const dir = join(projectRoot, source.slice(0, -3));
      t.ok(existsSync(dir) && statSync(dir).isDirectory(), `${entry}: test/ has that folder`);
    } else {
      t.match(source, /^test\/.+\.test\.js$/, `${entry}: a compiled test file`);
      t.ok(existsSync(join(projectRoot, source.replace(/\.js$/, '.ts'))), `${entry}: ${source.replace(/\.js$/, '.ts')} exists`);
    }
  }
});

t.test('npm test runs the fast lane, test:full every test; both lint first', async (t) => {
  t.equal(pkg.scripts.test, 'npm run lint && tap');
  t.match(pkg.scripts['test:full'], /^npm run lint && tap --exclude='\*\*\/node_modules\/\*\*'/, 'the exclusions replaced by node_modules alone');
  t.match(readFileSync(join(projectRoot, '.ci', 'run'), 'utf8'), /\nnpm run test:full /, '.ci/run runs the full lane');
});
