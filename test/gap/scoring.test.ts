/**
 * The scoring model holds together: the method text that reports print states the constants the
 * functions use, the status rule behaves as the text says, and docs/scoring.md states the same
 * constants. Changing a threshold, weight or priority in one place and not the others fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MAX_REMEDIATION_STEPS } from '../../src/gap/engine.js';
import { FINDING_STATUSES, type Severity } from '../../src/core/vocabulary.js';
import { projectRoot } from '../../src/paths.js';
import {
  AT_RISK_SCORE,
  BASE_PRIORITY,
  COMPLIANT_SCORE,
  controlVerdict,
  evidenceKind,
  PARTIAL_CREDIT,
  pooledPosture,
  postureScore,
  postureStatus,
  remediationPriority,
  SCORING_VERSION,
  scoringMethod,
  WIDE_FIX_FRAMEWORKS,
  type Evidence,
  type MappingRelationship,
} from '../../src/gap/scoring.js';

const section = (title: string) => scoringMethod({ min_confidence: 0.8, include_resolved: false }).find((s) => s.title === title)!.text;
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

t.test('the functions use the constants the method states', async (t) => {
  t.equal(postureStatus(COMPLIANT_SCORE, false), 'compliant');
  t.equal(postureStatus(COMPLIANT_SCORE, true), 'at_risk');
  t.equal(postureStatus(COMPLIANT_SCORE - 0.1, false), 'at_risk');
  t.equal(postureStatus(AT_RISK_SCORE, false), 'at_risk');
  t.equal(postureStatus(AT_RISK_SCORE - 0.1, false), 'non_compliant');
  t.equal(postureScore(0, 1, 1), 100 * PARTIAL_CREDIT, 'a partially compliant control counts PARTIAL_CREDIT');
  for (const severity of Object.keys(BASE_PRIORITY) as Severity[]) {
    t.equal(remediationPriority(severity, WIDE_FIX_FRAMEWORKS - 1), BASE_PRIORITY[severity], `${severity}: base priority`);
    t.equal(remediationPriority(severity, WIDE_FIX_FRAMEWORKS), Math.max(1, BASE_PRIORITY[severity] - 1), `${severity}: a wide fix moves up`);
  }
});

t.test('the method text states the constants', async (t) => {
  const posture = section('Posture score');
  t.match(posture, `(compliant + ${PARTIAL_CREDIT} x partially compliant)`);
  t.match(posture, `compliant at ${COMPLIANT_SCORE} or more with no critical or high gap`);
  t.match(posture, `at risk at ${AT_RISK_SCORE} or more`);
  t.match(posture, `non-compliant below ${AT_RISK_SCORE}`);
  const priority = section('Severity and priority');
  for (const [severity, rank] of Object.entries(BASE_PRIORITY)) t.match(priority, `${severity} ${rank}`);
  t.match(priority, `${WIDE_FIX_FRAMEWORKS} or more selected frameworks`);
  t.match(section('Findings to controls'), 'minimum confidence (0.8). Resolved findings are left out in this analysis.');
  t.match(scoringMethod({ include_resolved: true })[0].text, 'Resolved findings are included as passing evidence in this analysis.');
  t.notMatch(scoringMethod()[0].text, '(', 'no confidence quoted when the analysis gave none');
});

t.test('the control-status text says what the rule does', async (t) => {
  const text = section('Control status');
  const sentence = (label: string) => text.split(/(?<=\.) /).find((s) => s.startsWith(`${label}:`))!;
  const word = (status: string) => status.replace('_', '-');
  for (const status of FINDING_STATUSES) {
    const kind = evidenceKind(status);
    const verdicts = (['primary', 'supporting', 'partial'] as MappingRelationship[]).map(
      (relationship) => controlVerdict([{ kind, relationship, confidence: 0.9 }], () => 'low').status,
    );
    const decisive = verdicts[0] === 'non_compliant';
    t.equal(sentence('Non-compliant').includes(word(status)), decisive, `${status}: named as a primary failure iff it makes a control non-compliant`);
    t.equal(
      sentence('Compliant').includes(word(status)),
      verdicts.every((v) => v === 'compliant'),
      `${status}: named as passing iff it only ever makes a control compliant`,
    );
    if (!decisive && verdicts.includes('partially_compliant'))
      t.ok(sentence('Partially compliant').includes(word(status)) || kind === 'failing', `${status}: partial`);
  }
});

t.test('the status rule: the strongest class of evidence decides, with its confidence', async (t) => {
  const severityOf = (e: { severity: Severity }) => e.severity;
  const evidence: Array<Evidence & { severity: Severity }> = [
    { kind: 'passing', relationship: 'primary', confidence: 0.95, severity: 'critical' },
    { kind: 'accepted', relationship: 'primary', confidence: 0.7, severity: 'medium' },
    { kind: 'failing', relationship: 'supporting', confidence: 0.8, severity: 'low' },
  ];
  t.same(
    controlVerdict(evidence, severityOf),
    { status: 'partially_compliant', confidence: 0.8, severity: 'medium' },
    'passing evidence never sets the severity',
  );
  t.same(controlVerdict([...evidence, { kind: 'failing', relationship: 'primary', confidence: 0.72, severity: 'high' as const }], severityOf), {
    status: 'non_compliant',
    confidence: 0.72,
    severity: 'high',
  });
  t.same(controlVerdict([evidence[0]], severityOf), { status: 'compliant', confidence: 0.95, severity: null });
});

t.test('credit rests on passing evidence: adverse evidence alone earns none, whatever the relationship', async (t) => {
  const severityOf = () => 'medium' as const;
  for (const relationship of ['supporting', 'partial'] as MappingRelationship[]) {
    t.equal(controlVerdict([{ kind: 'failing', relationship, confidence: 0.75 }], severityOf).status, 'non_compliant', `failing through ${relationship} alone`);
    t.equal(
      controlVerdict(
        [
          { kind: 'failing', relationship, confidence: 0.75 },
          { kind: 'passing', relationship: 'primary', confidence: 0.9 },
        ],
        severityOf,
      ).status,
      'partially_compliant',
      `failing through ${relationship} beside passing evidence is mixed`,
    );
  }
  t.equal(
    controlVerdict([{ kind: 'accepted', relationship: 'primary', confidence: 0.9 }], severityOf).status,
    'non_compliant',
    'a risk-accepted finding alone',
  );
  const failureOnly = ['primary', 'supporting', 'partial'].map(
    (relationship) => controlVerdict([{ kind: 'failing', relationship: relationship as MappingRelationship, confidence: 0.8 }], severityOf).status,
  );
  const counts = {
    compliant: 0,
    partially_compliant: failureOnly.filter((s) => s === 'partially_compliant').length,
    non_compliant: failureOnly.filter((s) => s === 'non_compliant').length,
    not_assessed: 0,
  };
  t.equal(pooledPosture([{ counts, critical_gaps: 0, high_gaps: 0 }]).score, 0, 'a failure-only scan scores 0 on what it assessed');
});

t.test('pooling adds counts up; it never averages scores', async (t) => {
  const a = { counts: { compliant: 9, partially_compliant: 0, non_compliant: 1, not_assessed: 90 }, critical_gaps: 0, high_gaps: 0 };
  const b = { counts: { compliant: 0, partially_compliant: 2, non_compliant: 0, not_assessed: 8 }, critical_gaps: 0, high_gaps: 1 };
  t.same(pooledPosture([a]), {
    status: 'compliant',
    score: 90,
    coverage: 0.1,
    controls_total: 100,
    controls_assessed: 10,
    counts: a.counts,
    critical_gaps: 0,
    high_gaps: 0,
  });
  const both = pooledPosture([a, b]);
  t.equal(both.score, postureScore(9, 2, 12));
  t.equal(both.status, 'at_risk', 'a high gap anywhere holds the pool below compliant');
  t.equal(both.coverage, 0.109);
  t.same(pooledPosture([]), {
    status: 'not_assessed',
    score: null,
    coverage: 0,
    controls_total: 0,
    controls_assessed: 0,
    counts: { compliant: 0, partially_compliant: 0, non_compliant: 0, not_assessed: 0 },
    critical_gaps: 0,
    high_gaps: 0,
  });
});

t.test('docs/scoring.md states the same constants', async (t) => {
  const doc = readFileSync(join(projectRoot, 'docs', 'scoring.md'), 'utf8');
  t.match(doc, `(scoring_version ${SCORING_VERSION})`, 'the title names the scoring version');
  t.match(doc, `Framework score = 100 × (compliant + ${PARTIAL_CREDIT} × partially_compliant) / assessed controls`);
  t.match(doc, `\`compliant\` when score ≥ ${COMPLIANT_SCORE} and there is no critical or high gap`);
  t.match(doc, `\`at_risk\` when\n  score ≥ ${AT_RISK_SCORE}, or ≥ ${COMPLIANT_SCORE} with a critical/high gap; \`non_compliant\` below ${AT_RISK_SCORE}`);
  const priorities = Object.entries(BASE_PRIORITY)
    .map(([severity, rank]) => `${severity} ${rank}`)
    .join(', ');
  t.match(doc, `Priority 1 (most urgent) to 5: ${priorities};`);
  t.match(doc, `open gaps in ${NUMBER_WORDS[WIDE_FIX_FRAMEWORKS]} or more requested frameworks moves up one step`);
  t.match(doc, `at most ${MAX_REMEDIATION_STEPS} (a gap`);
  const exportsDoc = readFileSync(join(projectRoot, 'docs', 'exports.md'), 'utf8');
  t.match(exportsDoc, `the ${AT_RISK_SCORE} (at risk) and ${COMPLIANT_SCORE} (compliant)`, 'docs/exports.md names the chart thresholds');
});
