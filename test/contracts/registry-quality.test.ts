/**
 * Quality gates over the real registry/sources (issue 7): every figure of `csr registry report`
 * that has a target must meet it. The sources are read with the compiler's own loader and
 * integrity checks (nothing is written, no LMDB build); docs/registry-report.md explains each figure.
 */
import t from 'tap';
import { defaultSourcesDir } from '../../src/paths.js';
import {
  computeReport,
  isEvidenceFragment,
  loadReportInput,
  normalizeText,
  TARGETS,
  type RegistryReport,
  type ReportInput,
} from '../../registry/report.js';

const input = await loadReportInput(defaultSourcesDir);
const report = computeReport(input);

/** At most this many offending items go into a failure's diagnostics. */
const SHOWN = 25;
const shown = (items: readonly string[]) => (items.length > SHOWN ? [...items.slice(0, SHOWN), `… and ${items.length - SHOWN} more`] : [...items]);

t.test('the sources load without errors', async (t) => {
  t.same(
    input.errors.slice(0, SHOWN).map((e) => `${e.file}: ${e.path} ${e.message}`),
    [],
    'registry/sources have no schema or integrity errors',
  );
});

t.test('every figure meets its target', async (t) => {
  t.ok(report.checks.length >= 30, `the report has its checks (${report.checks.length})`);
  for (const check of report.checks) {
    t.ok(check.pass, `${check.label}: ${check.value}${check.unit} (target ${check.target})`);
  }
});

t.test('signals: domains, distinct text, documented categories', async (t) => {
  t.same(report.signals.by_domain.filter((d) => d.signals === 0).map((d) => d.domain), [], 'every domain has signals');
  t.same(report.signals.duplicate_titles, [], 'no two signals share a title');
  t.same(report.signals.duplicate_descriptions, [], 'no two signals share a description');
  t.same(
    report.signals.by_domain.flatMap((d) => d.undeclared_categories.map((c) => `${d.domain} ${c}`)),
    [],
    'every category used is declared in its domain header',
  );
});

t.test('control coverage and prose', async (t) => {
  for (const c of report.coverage) {
    t.ok(c.covered_pct >= TARGETS.controlCoveragePct, `${c.framework}: ${c.covered_pct}% of controls covered`, { uncovered: shown(c.uncovered) });
    t.same(c.technical_uncovered, [], `${c.framework}: every technical control has a mapping at confidence >= 0.7`);
  }
  t.same(shown(report.controls.covered_missing_prose), [], 'covered controls have description, guidance and evidence');
  t.same(shown(report.controls.evidence_fragments), [], 'no evidence item is a fragment of a split sentence');
  t.same(shown(report.controls.evidence_count_off), [], 'every control lists 2-4 evidence items');
});

t.test('mappings: rationale, provenance, real scanner rules', async (t) => {
  t.same(shown(report.mappings.missing_rationale), [], 'every mapping has a rationale');
  t.same(shown(report.mappings.missing_provenance), [], 'every mapping has a complete provenance');
  t.same(shown(report.mappings.unknown_provenance_rules), [], 'scanner_rule provenance cites real rule ids only');
  t.same(shown(report.gen.under_target.map((g) => `${g.signal_id} (${g.frameworks.join(' ')})`)), [], `every GEN signal maps into >= ${TARGETS.genFrameworks} frameworks`);
});

t.test('tool mappings: only real rule ids', async (t) => {
  for (const tool of report.tools.by_tool) {
    t.same(shown(tool.unknown_rule_ids), [], `${tool.tool}: every mapped rule id is in rule-ids/${tool.tool}.txt`);
    if (tool.mappings) t.ok(tool.rule_list > 0, `${tool.tool}: has a rule-id list to check against`);
  }
});

// ---- the gates bite: the same computation over deliberately broken copies of the input ----

const failed = (r: RegistryReport) => r.checks.filter((c) => !c.pass).map((c) => c.id);

t.test('a mapping without rationale or provenance fails the gate', async (t) => {
  const [first, ...rest] = input.mappings;
  const broken: ReportInput = {
    ...input,
    mappings: [{ ...first, rationale: ' ' }, { ...rest[0], provenance: { kind: 'scanner_rule', source: 'prowler' } }, ...rest.slice(1)],
  };
  const ids = failed(computeReport(broken));
  t.ok(ids.includes('mappings.missing_rationale'), 'missing rationale is reported');
  t.ok(ids.includes('mappings.missing_provenance'), 'scanner_rule provenance without rules is reported');
});

t.test('a tool mapping to a rule id that the tool does not have fails the gate', async (t) => {
  const [file, ...others] = input.parsed.toolMappingFiles;
  const fake = { file: file.file, path: '/mappings/999999', value: { rule_id: 'not_a_real_rule_0000', rule_name: 'invented', template: file.records[0].value.template, confidence: 'LOW' as const } };
  const broken: ReportInput = { ...input, parsed: { ...input.parsed, toolMappingFiles: [{ ...file, records: [...file.records, fake] }, ...others] } };
  const r = computeReport(broken);
  t.ok(failed(r).includes('tools.unknown_rule_ids'), 'unknown rule id is reported');
  t.ok(r.tools.by_tool.some((tool) => tool.unknown_rule_ids.includes('not_a_real_rule_0000')), 'and listed under its tool');
});

t.test('duplicated signal text and a signal drop below target fail the gate', async (t) => {
  const [a, b, ...rest] = input.model.signals;
  const copy = { ...b, title: `  ${a.title.toUpperCase()}.`, description: a.description.replace(/\s+/g, '  ') };
  const r = computeReport({ ...input, model: { ...input.model, signals: [a, copy, ...rest] } });
  t.ok(failed(r).includes('signals.duplicate_titles'), 'same title after normalisation is reported');
  t.ok(failed(r).includes('signals.duplicate_descriptions'), 'same description after normalisation is reported');
  const few = computeReport({ ...input, model: { ...input.model, signals: input.model.signals.slice(0, 100) } });
  t.ok(failed(few).includes('signals.total'), 'fewer signals than the target is reported');
});

t.test('helpers', async (t) => {
  t.equal(normalizeText('  Keys  are NOT rotated — at all! '), 'keys are not rotated at all');
  t.ok(isEvidenceFragment('checksums)'), 'unbalanced bracket');
  t.ok(isEvidenceFragment('owners and status'), 'starts in the middle of a sentence');
  t.notOk(isEvidenceFragment('mTLS configuration'), 'mixed-case first word is not a fragment');
  t.notOk(isEvidenceFragment('Risk register with treatments, owners and status'), 'a full item');
});
