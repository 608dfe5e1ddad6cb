/**
 * The generated registry sources match their generators byte for byte: the committed
 * files under registry/sources (and the id ledger) are what `csr registry generate` writes from
 * registry/facts. Regenerates into a temp dir, so nothing in the worktree changes.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareGenerated, generateSources, GENERATED_MARK, writeGenerated } from '../../registry/generate/generate.js';
import { defaultFactsDir, defaultSourcesDir, projectRoot } from '../../src/paths.js';
import { tempDir } from './helpers.js';

const registryDir = join(projectRoot, 'registry');
const files = generateSources(defaultFactsDir, defaultSourcesDir);

t.test('every generated file is committed with the bytes its generator writes', async (t) => {
  t.ok(files.length > 20, `the generators write their files (${files.length})`);
  t.same(compareGenerated(files, registryDir), [], 'run `csr registry generate` and commit the result');
});

t.test('regenerating into an empty folder gives the committed bytes', async (t) => {
  const out = tempDir(t);
  writeGenerated(files, out);
  for (const file of files) t.equal(readFileSync(join(out, file.rel), 'utf8'), readFileSync(join(registryDir, file.rel), 'utf8'), file.rel);
  t.same(compareGenerated(files, out), [], 'nothing stale, nothing missing');
});

t.test('generated and hand-authored content stay in separate files', async (t) => {
  for (const file of files) {
    if (file.rel.endsWith('.json')) continue;
    t.ok(file.text.startsWith(`# ${GENERATED_MARK}`), `${file.rel} starts with the generator header`);
  }
  const authored = ['sources/signals/GEN.yaml', 'sources/signals/GEN-legacy-1.yaml', 'sources/signals/HIPAA.yaml', 'sources/registry.yaml'];
  for (const rel of authored) t.notOk(readFileSync(join(registryDir, rel), 'utf8').slice(0, 200).includes(GENERATED_MARK), `${rel} is hand-authored`);
});

t.test('a hand edit of a generated file is detected', async (t) => {
  const out = tempDir(t);
  writeGenerated(files, out);
  const victim = files.find((f) => f.rel.startsWith('sources/tool-mappings/'))!;
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(out, victim.rel), `${victim.text}# edited by hand\n`);
  t.same(compareGenerated(files, out), [victim.rel]);
});
