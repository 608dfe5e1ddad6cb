import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { outOfOrder, restoreCollapsedIds } from '../../registry/generate/crosswalk-ids.js';
import { projectRoot } from '../../src/paths.js';
import type { CrosswalkFile, FrameworkCatalogFile } from '../../src/schemas/registry-source.js';

const sources = join(projectRoot, 'registry', 'sources');
const read = <T>(path: string) => YAML.parse(readFileSync(join(sources, path), 'utf8')) as T;
const catalog = new Set(read<FrameworkCatalogFile>('frameworks/CIS.yaml').controls.map((c) => c.id));

t.test('an id that falls back below the one before it gets its trailing zero back', async (t) => {
  const ids = ['2.6', '3.1', '3.9', '3.1', '3.1', '3.11', '4.8', '4.1', '4.11', '13.9', '13.1', '14.1'];
  const { ids: restored, restored: rows } = restoreCollapsedIds(ids, catalog);
  t.same(restored, ['2.6', '3.1', '3.9', '3.10', '3.10', '3.11', '4.8', '4.10', '4.11', '13.9', '13.10', '14.1']);
  t.same(
    rows.map((r) => r.row),
    [3, 4, 7, 10],
    'the 3.1 that follows 2.6 is safeguard 3.1 and stays',
  );
  t.same(restoreCollapsedIds(['1.1', '5.1', '3.1'], catalog).ids, ['1.1', '5.1', '3.1'], 'no widened id fits the order: left for the order check');
  t.same(outOfOrder(['1.1', '5.1', '3.1']), [2]);
});

t.test('CIS ids in every crosswalk are catalog safeguards in CIS order, none decimal-collapsed', async (t) => {
  let checked = 0;
  for (const name of readdirSync(join(sources, 'crosswalks')).filter((n) => n.endsWith('.yaml'))) {
    const doc = read<CrosswalkFile>(`crosswalks/${name}`);
    for (const [side, column] of [
      ['framework_a', 0],
      ['framework_b', 1],
    ] as const) {
      if (doc[side] !== 'CIS') continue;
      const ids = doc.rows.map((row) => row[column]);
      checked += ids.length;
      t.same(
        ids.filter((id) => typeof id !== 'string' || !catalog.has(id)),
        [],
        `${name}: every CIS id is a catalog safeguard`,
      );
      // The publisher lists safeguards in catalog order; a collapsed 3.10 shows as "3.1" after "3.9".
      t.same(
        outOfOrder(ids).map((i) => `row ${i}: ${ids[i - 1]} then ${ids[i]}`),
        [],
        `${name}: CIS ids in CIS order`,
      );
      t.same(restoreCollapsedIds(ids, catalog).restored, [], `${name}: no decimal-collapsed id`);
    }
  }
  t.ok(checked > 0, 'at least one crosswalk has a CIS side');
  const cis = read<CrosswalkFile>('crosswalks/CIS__ISO27001.yaml').rows.map((r) => `${r[0]} ${r[1]}`);
  for (const row of ['3.10 A.5.14', '4.10 A.8.5', '8.10 A.5.28', '13.10 A.8.8', '16.10 A.8.27']) t.ok(cis.includes(row), `CIS__ISO27001 has ${row}`);
});
