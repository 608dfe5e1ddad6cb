/**
 * Quality gates over the real registry/sources: every figure of `csr registry report`
 * that has a target must meet it. The sources are read with the compiler's own loader and
 * integrity checks (nothing is written, no LMDB build); docs/registry-report.md explains each figure.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSourcesDir, projectRoot } from '../../src/paths.js';
import {
  computeReport,
  FIGURES_MARK,
  formatReportMarkdown,
  isEvidenceFragment,
  loadReportInput,
  normalizeText,
  SHORTFALLS,
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
    if (check.pass || !check.shortfall) t.ok(check.pass, `${check.label}: ${check.value}${check.unit} (target ${check.target})`);
    // A documented shortfall (SHORTFALLS in registry/report.ts) holds its floor instead.
    else
      t.ok(
        check.value >= check.shortfall.floor,
        `${check.label}: ${check.value}${check.unit}, short of ${check.target}, holds its floor ${check.shortfall.floor}${check.unit}`,
      );
  }
});

t.test('signals: domains, distinct text, documented categories', async (t) => {
  t.same(
    report.signals.by_domain.filter((d) => d.signals === 0).map((d) => d.domain),
    [],
    'every domain has signals',
  );
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
    // A documented shortfall (SHORTFALLS in registry/report.ts) holds its floor instead of the target.
    const floor = SHORTFALLS[`coverage.${c.framework}`]?.floor ?? TARGETS.controlCoveragePct;
    t.ok(c.covered_pct >= floor, `${c.framework}: ${c.covered_pct}% of controls covered (at least ${floor}%)`, { uncovered: shown(c.uncovered) });
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
});

t.test('technical signals: one condition each, controls through judged objectives', async (t) => {
  t.ok(report.technical.with_tool_mappings >= TARGETS.signalsWithToolMappings, `${report.technical.with_tool_mappings} signals carry tool mappings`);
  t.ok(
    report.technical.largest_twelve_share_pct < TARGETS.largestTwelveSharePct,
    `the 12 largest hold ${report.technical.largest_twelve_share_pct}% of tool mappings`,
    { largest: report.technical.largest },
  );
  const prowler = report.claims.by_framework.filter((r) => r.tool === 'prowler');
  t.ok(prowler.reduce((n, r) => n + r.claimed, 0) > 5000, 'the Prowler claims are read from registry/facts and weighed');
  t.ok(
    report.claims.rejected.every((r) => r.examples.length > 0),
    'every group of rejected claims names examples',
  );
  t.same(
    input.model.signals.filter((s) => s.domain === 'GEN' && /-\d{4}$/.test(s.id) && s.mappings.length).map((s) => s.id),
    [],
    'technical signals carry no mappings of their own: tool claims are evidence, their controls come through judged objectives',
  );
  t.ok(report.technical.with_objectives > 4500, `${report.technical.with_objectives} technical signals evidence an objective`);
});

/** The signal a tool rule lands on (through its finding template). */
function signalsOfRule(tool: string, rule: string): string[] {
  const templates = input.model.toolMappings.filter((m) => m.tool_id === tool && m.rule_id === rule).map((m) => m.template);
  return input.model.templates.filter((x) => templates.includes(x.id)).map((x) => x.signal_id);
}

t.test('the 1.0.0 misfire classes are gone', async (t) => {
  const kubeBench = input.model.toolMappings.filter((m) => m.tool_id === 'kube-bench');
  const alwaysAdmit = kubeBench.filter((m) => /alwaysadmit/i.test(m.rule_name));
  t.ok(alwaysAdmit.length > 20, 'kube-bench AlwaysAdmit rules are mapped');
  const authorizationModeSignals = new Set(
    kubeBench.filter((m) => /authorization-mode/i.test(m.rule_name)).flatMap((m) => signalsOfRule('kube-bench', m.rule_id)),
  );
  t.same(
    alwaysAdmit.flatMap((m) => signalsOfRule('kube-bench', m.rule_id)).filter((s) => authorizationModeSignals.has(s)),
    [],
    'AlwaysAdmit rules do not share a signal with authorization-mode rules',
  );
  const pki = kubeBench.filter((m) => /pki/i.test(m.rule_name) && /permission|ownership/i.test(m.rule_name));
  t.ok(pki.length > 20, 'PKI file permission checks are mapped');
  const tlsSignals = new Set(
    kubeBench.filter((m) => /tls-cert-file|client-cert-auth/i.test(m.rule_name)).flatMap((m) => signalsOfRule('kube-bench', m.rule_id)),
  );
  t.same(
    pki.flatMap((m) => signalsOfRule('kube-bench', m.rule_id)).filter((s) => tlsSignals.has(s)),
    [],
    'PKI permission checks do not share a signal with TLS checks',
  );
  const ksv1 = signalsOfRule('trivy', 'KSV-0001');
  t.equal(ksv1.length, 1, 'KSV-0001 maps to one signal');
  t.notOk(/ZONE|AVAILAB/.test(ksv1[0]), `KSV-0001 is not a single-zone signal (${ksv1[0]})`);
  for (const rule of ['CKV_AWS_1', 'CKV_AWS_62', 'CKV_AWS_63', 'CKV_AWS_355']) t.equal(signalsOfRule('checkov', rule).length, 1, `${rule} is mapped`);
});

t.test('every 1.0.0 GEN signal still resolves, marked superseded with its successors', async (t) => {
  const legacy = input.model.signals.filter((s) => s.domain === 'GEN' && /-\d{3}$/.test(s.id));
  t.equal(legacy.length, 120, 'the 120 topic signals of 1.0.0 are served');
  const withSuccessors = legacy.filter((s) => (input.model.supersededBy.get(s.id) ?? []).length > 0);
  t.equal(withSuccessors.length, legacy.length, 'each names its successors');
  for (const s of withSuccessors.slice(0, 5)) {
    for (const successor of input.model.supersededBy.get(s.id)!) t.ok(input.model.signalById.has(successor), `${successor} exists`);
  }
});

t.test('PCI DSS 8.5 carries its own title', async (t) => {
  const pci = input.model.frameworkByCode.get('PCIDSS')!;
  t.not(pci.byId.get('8.5')!.title, pci.byId.get('8.4')!.title);
  t.match(pci.byId.get('8.5')!.title, /configured to prevent misuse/);
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
  const fake = {
    file: file.file,
    path: '/mappings/999999',
    value: { rule_id: 'not_a_real_rule_0000', rule_name: 'invented', template: file.records[0].value.template, confidence: 'LOW' as const },
  };
  const broken: ReportInput = { ...input, parsed: { ...input.parsed, toolMappingFiles: [{ ...file, records: [...file.records, fake] }, ...others] } };
  const r = computeReport(broken);
  t.ok(failed(r).includes('tools.unknown_rule_ids'), 'unknown rule id is reported');
  t.ok(
    r.tools.by_tool.some((tool) => tool.unknown_rule_ids.includes('not_a_real_rule_0000')),
    'and listed under its tool',
  );
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

t.test('concentrating the tool mappings on a few signals fails the gate', async (t) => {
  const template = input.model.templates.find((x) => x.domain === 'GEN' && x.status === 'ACTIVE')!.id;
  const concentrated = { ...input.model, toolMappings: input.model.toolMappings.map((m) => ({ ...m, template })) };
  const r = computeReport({ ...input, model: concentrated });
  t.ok(failed(r).includes('technical.largest_twelve_share'), 'one signal holding every rule is reported');
  t.ok(failed(r).includes('technical.with_tool_mappings'), 'and so is the drop in signals with tool mappings');
});

t.test('a sampled mapping judged wrong and still served fails the gate', async (t) => {
  t.ok(input.review, 'the release has a committed precision review');
  const entry = input.review!.sample.find((e) => e.verdict === 'exact')!;
  const judgedWrong = { ...input.review!, sample: input.review!.sample.map((e) => (e === entry ? { ...e, verdict: 'wrong' as const, reason: 'test' } : e)) };
  t.ok(failed(computeReport({ ...input, review: judgedWrong })).includes('review.problems'), 'a wrong verdict on a served mapping is reported');
  const ownWork = { ...input.review!, sample: input.review!.sample.map((e) => (e === entry ? { ...e, reviewer: e.author } : e)) };
  t.ok(failed(computeReport({ ...input, review: ownWork })).includes('review.problems'), 'an author judging their own mapping is reported');
  const stale = { ...input.review!, mappings_hash: '0'.repeat(64) };
  t.ok(failed(computeReport({ ...input, review: stale })).includes('review.problems'), 'a review older than the content is reported');
  t.ok(failed(computeReport({ ...input, review: undefined })).includes('review.problems'), 'no review is reported');
});

t.test('template rationales and cut titles fail the gate', async (t) => {
  const template = (i: number) => `Prowler maps check_${i} (1 of its 1 rule here) to this requirement in some_map @ ${i}.`;
  const templated = input.mappings.map((m, i) => (m.confidence >= 0.7 ? { ...m, rationale: template(i) } : m));
  t.ok(failed(computeReport({ ...input, mappings: templated })).includes('texts.template_rationale'), 'fill-in-the-blanks rationales are reported');
  const [a, ...rest] = input.model.signals;
  const cut = computeReport({ ...input, model: { ...input.model, signals: [{ ...a, title: 'Azure: Ensure that' }, ...rest] } });
  t.ok(failed(cut).includes('texts.cut_titles'), 'a cut title is reported');
});

t.test('docs/registry-figures.md is the report of the current sources', async (t) => {
  const committed = readFileSync(join(projectRoot, 'docs', 'registry-figures.md'), 'utf8');
  t.ok(committed.startsWith(FIGURES_MARK), 'the page names its generator');
  t.equal(committed, formatReportMarkdown(report), 'run `csr registry report --markdown > docs/registry-figures.md` and commit it');
});

t.test('helpers', async (t) => {
  t.equal(normalizeText('  Keys  are NOT rotated — at all! '), 'keys are not rotated at all');
  t.ok(isEvidenceFragment('checksums)'), 'unbalanced bracket');
  t.ok(isEvidenceFragment('owners and status'), 'starts in the middle of a sentence');
  t.notOk(isEvidenceFragment('mTLS configuration'), 'mixed-case first word is not a fragment');
  t.notOk(isEvidenceFragment('Risk register with treatments, owners and status'), 'a full item');
});
