import t from 'tap';
import { assess, remediationStepsFrom, type AnalysisOptions, type Finding, type GapRegistry } from '../../src/gap/engine.js';
import { postureScore, postureStatus, remediationPriority, priorityLabel } from '../../src/gap/scoring.js';

/**
 * A hand-built registry: framework AAA has 10 controls (A1..A10), BBB has 4 (B1..B4).
 * S-PRIMARY maps primary to A1 (0.9) and supporting to B1 (0.75);
 * S-SUPPORT maps supporting to A2 (0.8); S-LOW maps primary to A3 at 0.5 (below the default floor);
 * S-WIDE maps primary to A4 (0.9) and B2 (0.85).
 */
const signals = {
  'S-PRIMARY': {
    id: 'S-PRIMARY',
    title: 'Primary weakness',
    severity: 'high',
    effort: 'medium',
    remediation_hint: 'Fix the primary weakness.',
    remediation_order: 1,
  },
  'S-SUPPORT': {
    id: 'S-SUPPORT',
    title: 'Supporting weakness',
    severity: 'medium',
    effort: 'low',
    remediation_hint: 'Fix the supporting weakness.',
    remediation_order: 2,
  },
  'S-LOW': { id: 'S-LOW', title: 'Weakly mapped weakness', severity: 'low', effort: 'low', remediation_hint: 'Fix the weak one.', remediation_order: 3 },
  'S-WIDE': { id: 'S-WIDE', title: 'Wide weakness', severity: 'critical', effort: 'high', remediation_hint: 'Fix the wide weakness.', remediation_order: 0 },
} as const;
const mappings: Record<string, Array<{ framework: string; control_id: string; relationship: 'primary' | 'supporting' | 'partial'; confidence: number }>> = {
  'S-PRIMARY': [
    { framework: 'AAA', control_id: 'A1', relationship: 'primary', confidence: 0.9 },
    { framework: 'BBB', control_id: 'B1', relationship: 'supporting', confidence: 0.75 },
  ],
  'S-SUPPORT': [{ framework: 'AAA', control_id: 'A2', relationship: 'supporting', confidence: 0.8 }],
  'S-LOW': [{ framework: 'AAA', control_id: 'A3', relationship: 'primary', confidence: 0.5 }],
  'S-WIDE': [
    { framework: 'AAA', control_id: 'A4', relationship: 'primary', confidence: 0.9 },
    { framework: 'BBB', control_id: 'B2', relationship: 'primary', confidence: 0.85 },
  ],
};
const controlCounts: Record<string, number> = { AAA: 10, BBB: 4 };
const registry: GapRegistry = {
  signal: (id) => signals[id as keyof typeof signals] as never,
  mappingsOfSignal: (id) => mappings[id] ?? [],
  framework: (code) => ({ code, name: `Framework ${code}`, version: '1', control_count: controlCounts[code] }),
  control: (framework, id) => ({
    id,
    title: `Control ${id}`,
    category: `${framework} family`,
    guidance: `Guidance for ${id}.`,
    evidence: [`Evidence for ${id}`],
  }),
  controls: (framework) =>
    Array.from({ length: controlCounts[framework] }, (_, i) => {
      const id = `${framework[0]}${i + 1}`;
      const mapped = Object.entries(mappings).flatMap(([signal_id, list]) =>
        list.filter((m) => m.framework === framework && m.control_id === id).map((m) => ({ signal_id, confidence: m.confidence })),
      );
      return { id, mapped_signals: mapped };
    }),
  remediationSteps: (id) =>
    remediationStepsFrom(id === 'S-PRIMARY' ? ['Step one', 'Step two', 'step one', 'Step three'] : [], signals[id as keyof typeof signals].remediation_hint),
};
const defaults: AnalysisOptions = {
  include_resolved: false,
  min_confidence: 0.7,
  include_remediation: true,
  include_evidence_requirements: false,
  include_cross_framework: true,
};
const finding = (id: string, signal_id: string, status: Finding['status'], level?: Finding['severity']): Finding => ({
  id,
  signal_id,
  status,
  ...(level && { severity: level }),
});

t.test('status rules', async (t) => {
  const outcome = assess(registry, [finding('f1', 'S-PRIMARY', 'open'), finding('f2', 'S-SUPPORT', 'in_progress')], ['AAA'], defaults);
  const [aaa] = outcome.frameworks;
  const a1 = aaa.gaps.find((g) => g.control.id === 'A1')!;
  const a2 = aaa.gaps.find((g) => g.control.id === 'A2')!;
  t.equal(a1.status, 'non_compliant', 'failing finding through a primary mapping');
  t.equal(a2.status, 'non_compliant', 'failing finding only through a supporting mapping, nothing passing: no credit');
  t.equal(a1.confidence, 0.9);
  t.equal(a1.severity, 'high', 'severity falls back to the signal');
  t.same(aaa.counts, { compliant: 0, partially_compliant: 0, non_compliant: 2, not_assessed: 8 });
  t.equal(aaa.score, 0, 'a failure-only scan scores 0 on what it assessed');
  t.equal(aaa.status, 'non_compliant');
  t.equal(aaa.coverage, 0.2);

  const accepted = assess(registry, [finding('f1', 'S-PRIMARY', 'accepted')], ['AAA'], defaults).frameworks[0];
  t.equal(accepted.gaps[0].status, 'non_compliant', 'an accepted risk alone earns no credit');

  const passing = assess(registry, [finding('f1', 'S-PRIMARY', 'false_positive')], ['AAA'], defaults).frameworks[0];
  t.equal(passing.compliant[0].status, 'compliant', 'only passing evidence → compliant');
  t.equal(passing.gaps.length, 0);
  t.equal(passing.score, 100);
  t.equal(passing.status, 'compliant');

  const mixed = assess(registry, [finding('f1', 'S-PRIMARY', 'false_positive'), finding('f2', 'S-PRIMARY', 'open')], ['AAA'], defaults).frameworks[0];
  t.equal(mixed.gaps[0].status, 'non_compliant', 'one failing primary finding outweighs passing evidence');
  t.equal(mixed.compliant.length, 0);
});

t.test('resolved findings and the confidence floor', async (t) => {
  const dropped = assess(registry, [finding('f1', 'S-PRIMARY', 'resolved')], ['AAA'], defaults);
  t.equal(dropped.findings.excluded_resolved, 1);
  t.equal(dropped.frameworks[0].counts.not_assessed, 10, 'a dropped finding assesses nothing');
  t.equal(dropped.frameworks[0].score, null);
  t.equal(dropped.frameworks[0].status, 'not_assessed', 'a control with no evidence is never compliant');

  const kept = assess(registry, [finding('f1', 'S-PRIMARY', 'resolved')], ['AAA'], { ...defaults, include_resolved: true });
  t.equal(kept.frameworks[0].compliant[0].control.id, 'A1', 'include_resolved: resolved is passing evidence');

  const floor = assess(registry, [finding('f1', 'S-LOW', 'open')], ['AAA'], defaults);
  t.equal(floor.frameworks[0].gaps.length, 0, 'a 0.5 mapping is below min_confidence 0.7');
  t.equal(floor.findings.unmapped, 1);
  const lowered = assess(registry, [finding('f1', 'S-LOW', 'open')], ['AAA'], { ...defaults, min_confidence: 0.5 });
  t.equal(lowered.frameworks[0].gaps[0].control.id, 'A3');

  const strict = assess(registry, [finding('f1', 'S-PRIMARY', 'open')], ['BBB'], { ...defaults, min_confidence: 0.8 });
  t.equal(strict.frameworks[0].gaps.length, 0, 'the 0.75 supporting mapping into BBB is filtered at 0.8');
});

t.test('severity from the finding wins over the signal', async (t) => {
  const outcome = assess(
    registry,
    [finding('f1', 'S-SUPPORT', 'open', { level: 'critical' }), finding('f2', 'S-SUPPORT', 'open', { level: 'low' })],
    ['AAA'],
    defaults,
  );
  t.equal(outcome.frameworks[0].gaps[0].severity, 'critical', 'highest among failing findings');
  t.equal(outcome.frameworks[0].critical_gaps, 1);
});

t.test('posture thresholds', async (t) => {
  t.equal(postureScore(9, 0, 10), 90);
  t.equal(postureScore(5, 1, 9), 61.1);
  t.equal(postureScore(0, 0, 0), null);
  t.equal(postureStatus(90, false), 'compliant');
  t.equal(postureStatus(90, true), 'at_risk', '≥ 90 with a critical or high gap');
  t.equal(postureStatus(89.9, false), 'at_risk');
  t.equal(postureStatus(60, false), 'at_risk');
  t.equal(postureStatus(59.9, false), 'non_compliant');
  t.equal(postureStatus(null, false), 'not_assessed');
});

t.test('remediation: priority, effort, de-duplicated steps, evidence', async (t) => {
  t.equal(remediationPriority('high', 1), 2);
  t.equal(remediationPriority('high', 3), 1, 'touching three frameworks moves up a step');
  t.equal(remediationPriority('info', 1), 5);
  t.equal(priorityLabel(1), 'critical');
  t.equal(priorityLabel(5), 'low');

  const outcome = assess(registry, [finding('f1', 'S-PRIMARY', 'open'), finding('f2', 'S-WIDE', 'open')], ['AAA', 'BBB'], {
    ...defaults,
    include_evidence_requirements: true,
  });
  const gapOf = (id: string) => outcome.frameworks[0].gaps.find((g) => g.control.id === id)!;
  const a1 = gapOf('A1').remediation!;
  t.same(a1.steps, ['Step one', 'Step two', 'Step three'], 'steps from templates, case-insensitively de-duplicated');
  t.equal(a1.effort, 'medium');
  t.equal(a1.priority, 2, 'high severity, S-PRIMARY opens gaps in two frameworks');
  t.equal(a1.priority_label, 'high');
  t.match(a1.guidance, /Guidance for A1\. Fix the primary weakness\./);
  const a4 = gapOf('A4').remediation!;
  t.equal(a4.priority, 1);
  t.equal(a4.effort, 'high');
  t.same(a4.steps, ['Fix the wide weakness.'], 'without templates the signal hint is the step');
  t.equal(a4.guidance, 'Guidance for A4.', 'a hint that is already a step is not repeated in the guidance');
  t.same(gapOf('A1').evidence, ['Evidence for A1']);

  const without = assess(registry, [finding('f1', 'S-PRIMARY', 'open')], ['AAA'], { ...defaults, include_remediation: false });
  t.notOk(
    without.frameworks[0].gaps.some((g) => g.remediation),
    'remediation only when asked',
  );
  t.notOk(
    without.frameworks[0].gaps.some((g) => g.evidence),
    'evidence only when asked',
  );
});

t.test('remediation: per-platform re-scan checks become one check, after the fixes', async (t) => {
  const templateSteps: Record<string, string[]> = {
    'S-PRIMARY': [
      'Fix one.',
      'Re-run the AWS scan and confirm the mapped rules now pass.',
      'Fix two.',
      'Re-run the Azure scan and confirm the mapped rules now pass.',
    ],
    'S-SUPPORT': ['Fix three.', 'Fix four.', 'Fix five.', 'Fix six.', 'Re-run the Google Cloud scan and confirm the mapped rules now pass.'],
  };
  const withChecks: GapRegistry = {
    ...registry,
    remediationSteps: (id) => remediationStepsFrom(templateSteps[id] ?? [], signals[id as keyof typeof signals].remediation_hint),
  };
  t.same(
    remediationStepsFrom(templateSteps['S-PRIMARY'], ''),
    {
      fixes: [
        { text: 'Fix one.', key: 'fix one.' },
        { text: 'Fix two.', key: 'fix two.' },
      ],
      rescanCheck: true,
    },
    'a re-scan check is recognised by its wording',
  );
  const one = assess(withChecks, [finding('f1', 'S-PRIMARY', 'open')], ['AAA'], defaults).frameworks[0].gaps[0].remediation!;
  t.same(one.steps, ['Fix one.', 'Fix two.', 'Re-run the scans that reported these findings and confirm the mapped rules now pass.']);

  const crowded = {
    ...withChecks,
    mappingsOfSignal: (id: string) =>
      id === 'S-SUPPORT' ? [{ framework: 'AAA', control_id: 'A1', relationship: 'primary' as const, confidence: 0.9 }] : registry.mappingsOfSignal(id),
  };
  const both = assess(crowded, [finding('f1', 'S-PRIMARY', 'open'), finding('f2', 'S-SUPPORT', 'open')], ['AAA'], defaults).frameworks[0].gaps.find(
    (g) => g.control.id === 'A1',
  )!.remediation!;
  t.same(
    both.steps,
    ['Fix one.', 'Fix two.', 'Fix three.', 'Fix four.', 'Fix five.', 'Re-run the scans that reported these findings and confirm the mapped rules now pass.'],
    'at most six steps: five fixes, most severe signal first, then the one check',
  );

  const noChecks = assess(registry, [finding('f1', 'S-PRIMARY', 'open')], ['AAA'], defaults).frameworks[0].gaps[0].remediation!;
  t.notOk(
    noChecks.steps.some((s) => s.startsWith('Re-run')),
    'no check is added when no template has one',
  );
});

t.test('overall posture pools frameworks; cross-framework insights', async (t) => {
  const outcome = assess(registry, [finding('f1', 'S-PRIMARY', 'open'), finding('f2', 'S-WIDE', 'false_positive')], ['AAA', 'BBB'], defaults);
  // AAA: A1 non-compliant, A4 compliant → 50. BBB: B1 non-compliant (supporting 0.75, nothing passing), B2 compliant → 50.
  t.equal(outcome.frameworks[0].score, 50);
  t.equal(outcome.frameworks[1].score, 50);
  t.same(outcome.overall.counts, { compliant: 2, partially_compliant: 0, non_compliant: 2, not_assessed: 10 });
  t.equal(outcome.overall.score, 50, '100 × 2 / 4');
  t.equal(outcome.overall.status, 'non_compliant');
  t.equal(outcome.overall.high_gaps, 2, 'A1 and B1 are high');

  t.equal(outcome.common_gaps.length, 1);
  t.equal(outcome.common_gaps[0].signal.id, 'S-PRIMARY');
  t.same(outcome.common_gaps[0].affects, [
    { framework: 'AAA', controls: ['A1'] },
    { framework: 'BBB', controls: ['B1'] },
  ]);
  t.equal(outcome.common_gaps[0].control_count, 2);
  const ab = outcome.synergies.find((s) => s.primary_framework === 'AAA' && s.synergy_with === 'BBB')!;
  // AAA controls with mappings ≥ 0.7: A1, A2, A4 (A3 is 0.5). Sharing a signal with BBB: A1, A4.
  t.equal(ab.overlap_percentage, 66.7);
  const ba = outcome.synergies.find((s) => s.primary_framework === 'BBB')!;
  t.equal(ba.overlap_percentage, 100);

  const none = assess(registry, [finding('f1', 'S-PRIMARY', 'open')], ['AAA', 'BBB'], { ...defaults, include_cross_framework: false });
  t.same(none.common_gaps, []);
  t.same(none.synergies, []);
});
