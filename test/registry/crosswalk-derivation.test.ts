import t from 'tap';
import { compileRegistry } from '../../registry/compile.js';
import { derivedConfidence, sharedSignalStrength } from '../../registry/lib/derive.js';
import { Registry } from '../../src/registry/registry.js';
import { fixtureSources, tempDir } from './helpers.js';

const outDir = tempDir(t);
await compileRegistry({ sourcesDir: fixtureSources(t), outDir });
const registry = Registry.open(outDir);
t.teardown(() => registry.close());

const derived = (signalId: string) =>
  registry
    .mappingsOfSignal(signalId)
    .filter((m) => m.derived)
    .map((m) => `${m.framework} ${m.control_id} ${m.relationship} ${m.confidence}`);

t.test('confidence formula stays within 0.5..0.65: a published row never reaches the default threshold', async (t) => {
  t.equal(derivedConfidence('equal', false, 1, 1), 0.65, 'an equal row to one control, from a certain source');
  t.equal(derivedConfidence('subset', false, 1, 0.9), 0.61);
  t.equal(derivedConfidence('intersect', false, 1, 0.9), 0.58);
  t.equal(derivedConfidence('intersect', false, 4, 0.9), 0.56);
  t.equal(derivedConfidence('equal', true, 1, 0.9), 0.58, 'a Rev 4 id counts at the weakest strength');
  t.equal(derivedConfidence('intersect', false, 500, 0.8), 0.5);
  for (const relationship of ['equal', 'subset', 'superset', 'intersect', 'related', 'supports', 'is supported by'] as const) {
    for (const fanOut of [1, 2, 3, 10, 100]) {
      for (const source of [0.8, 0.9, 1]) {
        const c = derivedConfidence(relationship, false, fanOut, source);
        t.ok(c >= 0.5 && c < 0.7, `${relationship} ×${fanOut} from ${source}: ${c}`);
      }
    }
  }
  t.same(
    [1, 2, 3, 4, 9].map((n) => sharedSignalStrength(n)),
    [
      { relationship: 'partial', strength: 0.5 },
      { relationship: 'partial', strength: 0.6 },
      { relationship: 'related', strength: 0.7 },
      { relationship: 'related', strength: 0.8 },
      { relationship: 'related', strength: 0.8 },
    ],
  );
});

t.test('a primary mapping spreads along crosswalk rows, NIST80053R5 rows reaching FedRAMP too', async (t) => {
  t.same(derived('CSR-HIPAA-AUDIT-LOG-REVIEW-001'), [
    'NISTCSF DE.CM-01 partial 0.58',
    'NISTCSF DE.CM-09 partial 0.58',
    'FEDRAMP AU-6 partial 0.58',
    'NIST80053R5 AU-2 partial 0.58',
    'NIST80053R5 AU-6 partial 0.58',
  ]);
  const viaCsf = registry.mappingsOfSignal('CSR-HIPAA-AUDIT-LOG-REVIEW-001').find((m) => m.control_id === 'DE.CM-01')!;
  t.same(viaCsf.provenance, { kind: 'crosswalk', source: 'HIPAA__NISTCSF', via: '164.312(b)' });
  t.match(viaCsf.rationale, /Fixture publisher A/);
  t.match(viaCsf.rationale, /164\.312\(b\) \(Audit Controls\)/);
});

t.test('Rev 4 rows reach FedRAMP only, as partial', async (t) => {
  t.same(derived('CSR-CMMC-ACCESS-ACCOUNT-MGMT-001'), ['FEDRAMP AC-2 partial 0.58']);
  t.match(registry.mappingsOfSignal('CSR-CMMC-ACCESS-ACCOUNT-MGMT-001')[1].rationale, /Rev 4/);
});

t.test('equal rows give partial mappings below the threshold; existing mappings are not duplicated', async (t) => {
  t.same(derived('CSR-HIPAA-CRYPTO-DATA-AT-REST-002'), ['ISO27001 A.8.24 partial 0.64']);
  const csf = registry.mappingsOfSignal('CSR-HIPAA-CRYPTO-DATA-AT-REST-002', 'NISTCSF');
  t.same(
    csf.map((m) => [m.control_id, m.derived]),
    [['PR.DS-01', false]],
    'the authored mapping wins over the HIPAA__NISTCSF row',
  );
});

t.test('only primary mappings of confidence >= 0.8 are starting points', async (t) => {
  t.same(derived('CSR-GEN-ACCESS-MFA-ENFORCED-001'), [], 'no rows start from its controls');
  t.ok(
    registry
      .mappings()
      .items.filter((m) => m.derived)
      .every((m) => m.confidence >= 0.5 && m.confidence < 0.7),
  );
});

t.test('control crosswalk records from rows and from shared signals', async (t) => {
  const pair = (a: string, b: string) =>
    registry
      .controlCrosswalks(a, b)
      .items.map(
        (c) => `${c.control_a.control_id}~${c.control_b.control_id} ${c.relationship} ${c.strength} [${c.basis.join(',')}] (${c.shared_signals.join(',')})`,
      );
  t.same(pair('NISTCSF', 'ISO27001'), ['PR.DS-01~A.8.24 equivalent 0.95 [NISTCSF__ISO27001] ()', 'DE.CM-09~A.8.15 related 0.8 [NISTCSF__ISO27001] ()']);
  t.same(pair('CMMC', 'FEDRAMP'), ['AC.L2-3.1.1~AC-2 partial 0.5 [CMMC__NIST80053R4] ()']);
  t.same(pair('HIPAA', 'FEDRAMP'), ['164.312(b)~AU-6 partial 0.6 [HIPAA__NIST80053R5] ()']);
  t.same(pair('HIPAA', 'NIST80053R5'), ['164.312(b)~AU-2 partial 0.6 [HIPAA__NIST80053R5] ()', '164.312(b)~AU-6 partial 0.6 [HIPAA__NIST80053R5] ()']);
  t.same(pair('HIPAA', 'CMMC'), ['164.312(d)~IA.L2-3.5.3 partial 0.5 [shared_signals] (CSR-GEN-ACCESS-MFA-ENFORCED-001)']);
  t.same(pair('HIPAA', 'NISTCSF')[0], '164.312(a)(2)(iv)~PR.DS-01 partial 0.6 [HIPAA__NISTCSF,shared_signals] (CSR-HIPAA-CRYPTO-DATA-AT-REST-002)');
});

t.test('framework overlap counts signals of both frameworks over signals of either', async (t) => {
  // HIPAA: audit, crypto, mfa, gen; NISTCSF: audit (derived), crypto, gen → 3 shared of 4.
  t.match(registry.crosswalkOverlap('HIPAA', 'NISTCSF'), { shared_signals: 3, overlap_percentage: 75 });
  // CMMC: cmmc, gen; FEDRAMP: cmmc (Rev 4), audit → 1 of 3.
  t.match(registry.crosswalkOverlap('CMMC', 'FEDRAMP'), { shared_signals: 1, crosswalk_count: 1, overlap_percentage: 33.3 });
});
