import t, { type Test } from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { compileRegistry } from '../../registry/compile.js';
import { projectRoot } from '../../src/paths.js';
import { Registry } from '../../src/registry/registry.js';
import { compileErrors, fixtureSources, tempDir } from './helpers.js';

const sources = join(projectRoot, 'registry', 'sources');
const docs = (dir: string) =>
  readdirSync(join(sources, dir))
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => ({ name, doc: YAML.parse(readFileSync(join(sources, dir, name), 'utf8')) as { licence?: string; serve?: boolean } }));

t.test('every framework catalog and crosswalk records its licence', async (t) => {
  for (const dir of ['frameworks', 'crosswalks']) {
    const files = docs(dir);
    t.ok(files.length > 0, `${dir}/ has files`);
    for (const { name, doc } of files) t.match(doc.licence, /\S/, `${dir}/${name} has a licence`);
  }
});

t.test('the CIS mapping (CC BY-NC-ND) is not served; the other crosswalks are', async (t) => {
  for (const { name, doc } of docs('crosswalks')) {
    if (name === 'CIS__ISO27001.yaml') {
      t.match(doc.licence, /CC BY-NC-ND 4\.0/);
      t.equal(doc.serve, false, 'CIS__ISO27001 has serve: false');
    } else t.not(doc.serve, false, `${name} is served`);
  }
});

/** What a compiled fixture serves from the NISTCSF__ISO27001 rows. */
async function servedFrom(t: Test, sourcesDir: string) {
  const outDir = tempDir(t);
  await compileRegistry({ sourcesDir, outDir });
  const registry = Registry.open(outDir);
  try {
    const mappings = registry
      .mappings()
      .items.filter((m) => m.provenance.kind === 'crosswalk' && m.provenance.source === 'NISTCSF__ISO27001')
      .map((m) => `${m.signal_id} ${m.framework} ${m.control_id}`);
    const records = registry.controlCrosswalks('NISTCSF', 'ISO27001').items.filter((c) => c.basis.includes('NISTCSF__ISO27001'));
    return { mappings, records: records.length, overlap: registry.crosswalkOverlap('NISTCSF', 'ISO27001')!.crosswalk_count };
  } finally {
    registry.close();
  }
}

t.test('a crosswalk with serve: false derives no mapping and no crosswalk record', async (t) => {
  const served = await servedFrom(t, fixtureSources(t));
  t.same(served.mappings, ['CSR-HIPAA-CRYPTO-DATA-AT-REST-002 ISO27001 A.8.24'], 'served, the equal row derives a mapping');
  t.ok(served.records > 0 && served.overlap > 0, 'served, the rows give crosswalk records');
  t.same(await servedFrom(t, fixtureSources(t, 'crosswalk-not-served')), { mappings: [], records: 0, overlap: 0 });
});

t.test('the compiler refuses a non-commercial crosswalk that would be served, and a mapping that follows an unserved one', async (t) => {
  t.same(await compileErrors(fixtureSources(t, 'crosswalk-noncommercial'), tempDir(t)), [
    `crosswalks/NISTCSF__ISO27001.yaml: /serve must be false: the licence 'CC BY-NC-ND 4.0 (fixture)' does not allow serving the rows or mappings derived from them commercially`,
  ]);
  t.same(await compileErrors(fixtureSources(t, 'provenance-not-served'), tempDir(t)), [
    `signals/HIPAA-2.yaml: /signals/0/mappings/1/provenance/source crosswalk 'HIPAA__NISTCSF' is not served (serve: false, its licence), so no mapping may follow it`,
  ]);
});
