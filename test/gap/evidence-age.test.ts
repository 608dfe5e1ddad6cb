/**
 * The evidence-age rule (docs/scoring.md, rule 5) holds together: the request's default is the
 * scoring model's constant, docs/scoring.md and the method text state it, and the predicate marks
 * only passing evidence past the limit.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { DEFAULT_MAX_EVIDENCE_AGE_DAYS, isStaleEvidence, scoringMethod } from '../../src/gap/scoring.js';
import { AnalysisOptionsInput } from '../../src/schemas/gap.js';

const DAY = 86_400_000;
const asOf = Date.parse('2026-11-28T00:00:00Z');
const daysBefore = (days: number) => new Date(asOf - days * DAY).toISOString();

t.test('the request default is the model constant', async (t) => {
  t.equal(AnalysisOptionsInput.properties.max_evidence_age_days.default, DEFAULT_MAX_EVIDENCE_AGE_DAYS);
});

t.test('only passing evidence past the limit is stale', async (t) => {
  t.equal(isStaleEvidence('passing', daysBefore(91), asOf, 90), true, 'a pass 91 days old');
  t.equal(isStaleEvidence('passing', daysBefore(90), asOf, 90), false, 'exactly at the limit still counts');
  t.equal(isStaleEvidence('failing', daysBefore(900), asOf, 90), false, 'a failure counts whatever its age');
  t.equal(isStaleEvidence('accepted', daysBefore(900), asOf, 90), false, 'so does a risk acceptance');
  t.equal(isStaleEvidence('passing', undefined, asOf, 90), false, 'an undated pass is taken as current');
  t.equal(isStaleEvidence('passing', daysBefore(-3), asOf, 90), false, 'one dated after the analysis too');
  t.equal(isStaleEvidence('passing', daysBefore(200), asOf, 365), false, 'a wider limit');
});

t.test('docs and method text state it', async (t) => {
  const doc = readFileSync(join(projectRoot, 'docs', 'scoring.md'), 'utf8');
  t.match(doc, `(default **${DEFAULT_MAX_EVIDENCE_AGE_DAYS}**`);
  const section = (days?: number) => scoringMethod(days === undefined ? {} : { max_evidence_age_days: days }).find((s) => s.title === 'Evidence age')!.text;
  t.match(section(), `(${DEFAULT_MAX_EVIDENCE_AGE_DAYS} days unless it sets another)`);
  t.match(section(30), 'more than 30 days before this analysis is stale');
  t.match(section(), 'Failing and risk-accepted findings count whatever their age');
});
