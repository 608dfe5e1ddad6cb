/**
 * The evidence rule of custom controls: inherited mappings follow the NIST IR 8477 relationship as
 * docs/custom-frameworks.md states it, a signal counts once by its strongest path, a direct signal
 * wins, and references the registry lacks are listed, not used.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { INHERITANCE_RULE, inheritedMapping, resolveControls, type InheritanceRegistry } from '../../src/custom-frameworks/inheritance.js';
import { CORRESPONDENCE_RELATIONSHIPS } from '../../src/schemas/custom-framework.js';
import type { CustomControl } from '../../src/custom-frameworks/model.js';

t.test('the rule, mapping by mapping', async (t) => {
  const primary = { relationship: 'primary' as const, confidence: 0.9 };
  const supporting = { relationship: 'supporting' as const, confidence: 0.7 };
  t.same(inheritedMapping('equal', primary), primary, 'equal keeps the mapping');
  t.same(inheritedMapping('equal', supporting), supporting);
  t.same(inheritedMapping('subset_of', primary), { relationship: 'supporting', confidence: 0.81 }, 'subset_of: primary becomes supporting, × 0.9');
  t.same(inheritedMapping('subset_of', supporting), { relationship: 'supporting', confidence: 0.63 });
  t.same(inheritedMapping('subset_of', { relationship: 'partial', confidence: 0.58 }), { relationship: 'partial', confidence: 0.52 });
  t.same(inheritedMapping('superset_of', primary), { relationship: 'partial', confidence: 0.81 }, 'superset_of: partial, × 0.9');
  t.same(inheritedMapping('intersects_with', primary), { relationship: 'partial', confidence: 0.6 }, 'intersects_with: partial, capped at 0.6');
  t.same(
    inheritedMapping('intersects_with', { relationship: 'partial', confidence: 0.55 }),
    { relationship: 'partial', confidence: 0.55 },
    'a cap, not a floor',
  );
  for (const relationship of CORRESPONDENCE_RELATIONSHIPS) {
    t.ok(inheritedMapping(relationship, { relationship: 'primary', confidence: 1 }).confidence <= 1, `${relationship}: within 0–1`);
  }
  t.ok(inheritedMapping('intersects_with', primary).confidence < 0.7, 'intersects_with stays under the default min_confidence');
});

t.test('docs/custom-frameworks.md states the rule the code applies', async (t) => {
  const doc = readFileSync(join(projectRoot, 'docs', 'custom-frameworks.md'), 'utf8');
  for (const relationship of CORRESPONDENCE_RELATIONSHIPS) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${relationship}\` |`));
    if (!t.ok(row, `${relationship} has a row in the rule's table`)) continue;
    const rule = INHERITANCE_RULE[relationship];
    const confidence = row!.split('|')[3].trim();
    if (rule.scale === 1 && rule.cap === 1) t.equal(confidence, 'kept', `${relationship}: confidence kept`);
    if (rule.scale !== 1) t.equal(confidence, `× ${rule.scale}`, `${relationship}: × ${rule.scale}`);
    if (rule.cap !== 1) t.equal(confidence, `capped at ${rule.cap}`, `${relationship}: capped at ${rule.cap}`);
    const expected = { primary: rule.relationship('primary'), supporting: rule.relationship('supporting'), partial: rule.relationship('partial') };
    const words = row!.split('|')[2];
    if (expected.primary === 'primary' && expected.supporting === 'supporting') t.match(words, /kept/, `${relationship}: relationship kept`);
    else if (expected.supporting === 'supporting') t.match(words, /primary becomes supporting/, `${relationship}: primary becomes supporting`);
    else t.match(words, /^\s*partial/, `${relationship}: becomes partial`);
  }
});

const control = (over: Partial<CustomControl>): CustomControl => ({
  id: 'X-1',
  title: 'x',
  description: '',
  category: 'General',
  level: null,
  guidance: '',
  evidence: [],
  signals: [],
  corresponds_to: [],
  ...over,
});

const builtIn: Record<string, ReturnType<InheritanceRegistry['control']>> = {
  'A:1': {
    mapped_signals: [
      { signal_id: 'S-1', relationship: 'primary', confidence: 0.9 },
      { signal_id: 'S-2', relationship: 'supporting', confidence: 0.7 },
    ],
  },
  'B:1': {
    mapped_signals: [
      { signal_id: 'S-1', relationship: 'supporting', confidence: 0.7 },
      { signal_id: 'S-3', relationship: 'partial', confidence: 0.58 },
    ],
  },
};
const registry: InheritanceRegistry = {
  signal: (id) => (['S-1', 'S-2', 'S-3'].includes(id) ? { id } : undefined),
  control: (framework, id) => builtIn[`${framework}:${id}`],
};

t.test('resolution: strongest path, direct wins, unknown references listed', async (t) => {
  const [resolved] = resolveControls(
    {
      controls: [
        control({
          signals: [
            { signal_id: 'S-3', relationship: 'supporting', confidence: 0.75, rationale: '' },
            { signal_id: 'S-GONE', relationship: 'primary', confidence: 0.8, rationale: '' },
          ],
          corresponds_to: [
            { framework: 'A', control_id: '1', relationship: 'subset_of' },
            { framework: 'B', control_id: '1', relationship: 'equal' },
            { framework: 'C', control_id: '9', relationship: 'equal' },
          ],
        }),
      ],
    },
    registry,
  );
  t.same(
    resolved.mappings,
    [
      { signal_id: 'S-1', relationship: 'supporting', confidence: 0.81, via: { framework: 'A', control_id: '1', relationship: 'subset_of' } },
      { signal_id: 'S-2', relationship: 'supporting', confidence: 0.63, via: { framework: 'A', control_id: '1', relationship: 'subset_of' } },
      { signal_id: 'S-3', relationship: 'supporting', confidence: 0.75 },
    ],
    'S-1 by its stronger path (0.81 through A over 0.7 through B), S-3 direct over inherited, in signal id order',
  );
  t.same(resolved.unknown, ['C:9', 'S-GONE']);
});
