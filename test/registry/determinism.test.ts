import t from 'tap';
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { compileRegistry } from '../../registry/compile.js';
import { Registry } from '../../src/registry/registry.js';
import { readManifest } from '../../src/registry/manifest.js';
import { fixtureSources, tempDir } from './helpers.js';

const builds = (dir: string) => readdirSync(dir).filter((name) => /^[0-9a-f]{64}$/.test(name));

t.test('same sources give the same content hash, whatever the build time', async (t) => {
  const sources = fixtureSources(t);
  const first = await compileRegistry({ sourcesDir: sources, outDir: tempDir(t), now: new Date('2026-01-01T00:00:00Z') });
  const second = await compileRegistry({ sourcesDir: sources, outDir: tempDir(t), now: new Date('2026-06-30T12:00:00Z') });
  t.equal(first.manifest.content_hash, second.manifest.content_hash);
  t.equal(first.manifest.source_hash, second.manifest.source_hash);
  t.equal(first.manifest.built_at, '2026-01-01T00:00:00.000Z');
  t.equal(second.manifest.built_at, '2026-06-30T12:00:00.000Z');
  t.same(first.manifest.counts, second.manifest.counts);
});

t.test('the content hash does not depend on how signals are spread over files, ordered or written', async (t) => {
  const sources = fixtureSources(t);
  const before = await compileRegistry({ sourcesDir: sources, outDir: tempDir(t) });

  // Move the part file's signal into the header file, in front of the others, fields reversed.
  const part = yaml.load(readFileSync(join(sources, 'signals/HIPAA-2.yaml'), 'utf8'), { schema: yaml.CORE_SCHEMA }) as { signals: object[] };
  const main = yaml.load(readFileSync(join(sources, 'signals/HIPAA.yaml'), 'utf8'), { schema: yaml.CORE_SCHEMA }) as { signals: object[] };
  const reversedFields = (record: object) => Object.fromEntries(Object.entries(record).reverse());
  main.signals = [...part.signals, ...main.signals.reverse()].map(reversedFields);
  writeFileSync(join(sources, 'signals/HIPAA.yaml'), yaml.dump(main));
  rmSync(join(sources, 'signals/HIPAA-2.yaml'));
  const after = await compileRegistry({ sourcesDir: sources, outDir: tempDir(t) });

  t.not(after.manifest.source_hash, before.manifest.source_hash, 'the sources did change');
  t.equal(after.manifest.content_hash, before.manifest.content_hash, 'the content did not');
});

t.test('ifStale skips an up-to-date build and rebuilds a stale one', async (t) => {
  const sources = fixtureSources(t);
  const out = tempDir(t);
  const built = await compileRegistry({ sourcesDir: sources, outDir: out });
  t.equal(built.stale, true);

  const skipped = await compileRegistry({ sourcesDir: sources, outDir: out, ifStale: true });
  t.equal(skipped.stale, false);
  t.same(skipped.manifest, built.manifest);

  appendFileSync(join(sources, 'registry.yaml'), '# a comment changes the bytes, not the content\n');
  const rebuilt = await compileRegistry({ sourcesDir: sources, outDir: out, ifStale: true });
  t.equal(rebuilt.stale, true);
  t.not(rebuilt.manifest.source_hash, built.manifest.source_hash);
  t.equal(rebuilt.manifest.content_hash, built.manifest.content_hash);
  t.same(builds(out), [built.manifest.build], 'the build with the same content is reused');
});

t.test('a new build switches atomically; an open reader keeps its build', async (t) => {
  const sources = fixtureSources(t);
  const out = tempDir(t);
  const first = await compileRegistry({ sourcesDir: sources, outDir: out });
  const before = Registry.open(out);
  t.teardown(() => before.close());

  const file = join(sources, 'signals/CMMC.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('severity: medium', 'severity: low'));
  const second = await compileRegistry({ sourcesDir: sources, outDir: out });
  t.not(second.manifest.content_hash, first.manifest.content_hash);
  t.equal(readManifest(out)!.content_hash, second.manifest.content_hash);
  t.same(builds(out), [second.manifest.build], 'the older build is removed');
  t.same(readdirSync(out).sort(), [second.manifest.build, 'manifest.json'].sort(), 'no temp dirs are left');

  t.equal(before.signal('CSR-CMMC-ACCESS-ACCOUNT-MGMT-001')!.severity, 'medium', 'the open reader still reads its build');
  const after = Registry.open(out);
  t.teardown(() => after.close());
  t.equal(after.signal('CSR-CMMC-ACCESS-ACCOUNT-MGMT-001')!.severity, 'low');
});

t.test('opening a registry dir without a build names the fix', async (t) => {
  t.throws(() => Registry.open(tempDir(t)), { name: 'RegistryNotBuiltError', message: /no manifest\.json; run `csr registry build`/ });
});
