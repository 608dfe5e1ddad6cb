/**
 * The analysis result is written as JSON text by hand (src/gap/result.ts), not by JSON.stringify
 * of typed objects, so the compiler no longer checks its shape: this test does. Each result, for
 * every combination of options, must be canonical JSON (what JSON.stringify writes for the same
 * value), match the published schema with no member missing or extra at any depth, and carry the
 * optional parts exactly when the options ask for them.
 */
import t from 'tap';
import type { TSchema } from '@sinclair/typebox';
import { analyze } from '../../src/gap/analyze.js';
import { resultInVariant, scanMemberSpans } from '../../src/gap/variant.js';
import { problemsOf } from '../../src/core/validation.js';
import { AnalysisResult } from '../../src/schemas/gap-result.js';
import { finding, testRegistry } from '../helpers/findings.js';
import { expectedVariant } from '../helpers/variants.js';

/** The schema as published, but closed: an object may hold only the members it names. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]));
  if (copy.type === 'object') copy.additionalProperties = false;
  return copy;
}
const ClosedResult = closed(AnalysisResult) as TSchema;

const registry = testRegistry();
const FRAMEWORKS = ['SOC2', 'HIPAA', 'ISO27001', 'PCIDSS'];
// Signals with primary mappings of high confidence into two or more of them: gaps and common gaps at every min_confidence.
const ids = registry
  .signalIds()
  .filter(
    (id) =>
      new Set(
        registry
          .mappingsOfSignal(id)
          .filter((m) => FRAMEWORKS.includes(m.framework) && m.relationship === 'primary' && m.confidence >= 0.85)
          .map((m) => m.framework),
      ).size >= 2,
  )
  .slice(0, 40);
const STATUSES = ['open', 'in_progress', 'accepted', 'resolved', 'false_positive'];
// Ids that need escaping, findings with and without artifacts, every status, signals shared by several findings.
const findings = Array.from({ length: 120 }, (_, i) =>
  finding(i % 7 === 0 ? `f-"quoted"\\${i}\u2028é` : `f-${i}`, ids[(i * 131) % ids.length], STATUSES[i % STATUSES.length], {
    ...(i % 3 !== 0 && { artifact: { type: 'cloud.storage.object_bucket', id: `arn:aws:s3:::b-${i % 10}`, provider: 'aws' } }),
    ...(i % 11 === 0 && { severity: { level: 'critical' } }),
  }),
);

t.equal(ids.length, 40, 'the registry has the signals this test needs');

const flags = ['include_resolved', 'include_remediation', 'include_evidence_requirements', 'include_cross_framework'] as const;
for (let mask = 0; mask < 1 << flags.length; mask++) {
  const options: Record<string, unknown> = Object.fromEntries(flags.map((flag, bit) => [flag, (mask & (1 << bit)) !== 0]));
  if (mask % 3 === 0) options.min_confidence = 0.8;
  t.test(`options ${JSON.stringify(options)}`, async (t) => {
    const body = Buffer.from(JSON.stringify({ frameworks: FRAMEWORKS, findings, options }));
    const output = analyze(registry, { body, tier: 'enterprise', id: 'an-"1"', createdAt: '2026-11-24T10:00:00.000Z' });
    if (!output.ok) throw new Error(JSON.stringify(output.error));
    const text = Buffer.from(output.payload).toString('utf8');
    const result = JSON.parse(text);
    t.equal(text, JSON.stringify(result), 'canonical JSON: what JSON.stringify writes for the same value');
    t.same(problemsOf(ClosedResult, result), undefined, 'matches the schema with no member missing or extra');

    const gapsA = result.data.frameworks.flatMap((f: { gaps: unknown[] }) => f.gaps);
    const gapsB = Object.values(result.data.by_framework).flatMap((f) => (f as { gaps: unknown[] }).gaps) as Array<Record<string, unknown>>;
    t.ok(gapsA.length > 0, 'the findings open gaps');
    t.equal(gapsA.length, gapsB.length, 'both variants list the same gaps');
    for (const gaps of [gapsA, gapsB]) {
      t.ok(
        gaps.every((gap: Record<string, unknown>) => 'remediation' in gap === options.include_remediation),
        'remediation exactly when asked for',
      );
      t.ok(
        gaps.every((gap: Record<string, unknown>) => 'evidence_requirements' in gap === options.include_evidence_requirements),
        'evidence requirements exactly when asked for',
      );
    }
    t.equal(result.data.cross_framework.common_gaps.length > 0, options.include_cross_framework, 'common gaps exactly when asked for');
    t.same(result.data.cross_framework_insights.common_gaps, result.data.cross_framework.common_gaps, 'one list of common gaps under both names');
    for (const gap of result.data.cross_framework.common_gaps as Array<{
      signal_id: string;
      description: string;
      affects_frameworks: string[];
      controls_affected: Array<{ framework: string }>;
      remediation_overlap: string;
    }>) {
      const { title, remediation_hint } = registry.signal(gap.signal_id)!;
      t.equal(gap.description, `${title} (${gap.signal_id}) opens gaps in ${gap.affects_frameworks.length} frameworks`, 'a common gap says what it opens');
      t.same([...new Set(gap.controls_affected.map((c) => c.framework))], gap.affects_frameworks, 'its controls, framework by framework');
      t.equal(
        gap.remediation_overlap,
        `One fix closes ${gap.controls_affected.length} control gaps across ${gap.affects_frameworks.join(', ')}: ${remediation_hint}`,
        'and what one fix closes',
      );
    }
    const cited = new Set(gapsB.flatMap((gap) => (gap.findings as Array<{ finding_id: string }>).map((f) => f.finding_id)));
    t.ok(cited.has(findings[0].id), 'an id that needed escaping is cited as submitted');
    for (const gap of gapsB) {
      for (const index of gap.resources as number[]) t.ok(index < result.data.resources.length, 'resource indices point into data.resources');
    }

    // The byte spans of data's members, noted as the text is written, let one variant be cut out.
    const payload = Buffer.from(output.payload);
    t.same(output.dataMembers, scanMemberSpans(payload), "the spans noted while writing are where a read of the bytes finds data's members");
    t.same(
      spanNames(payload, output.dataMembers),
      Object.keys(result.data).map((name) => `"${name}":`),
      'each span starts at its member',
    );
    for (const variant of ['a', 'b'] as const) {
      const cut = resultInVariant(payload, output.dataMembers, variant).toString('utf8');
      t.equal(cut, JSON.stringify(expectedVariant(result, variant)), `Variant ${variant}: the result without the other variant's members, canonical JSON`);
    }
  });
}

function spanNames(payload: Buffer, spans: number[]): string[] {
  const names: string[] = [];
  for (let k = 0; k < spans.length; k += 2) names.push(payload.toString('utf8', spans[k], payload.indexOf(':', spans[k]) + 1));
  return names;
}

t.test('the spans of a result too large to be written in small pieces', async (t) => {
  // Above 4 M characters the text is joined only at member boundaries (src/gap/result.ts).
  const many = Array.from({ length: 10_000 }, (_, i) =>
    finding(`large-${i}-${'x'.repeat(40)}`, registry.signalIds()[(i * 7919) % registry.signalIds().length], STATUSES[i % STATUSES.length]),
  );
  const body = Buffer.from(JSON.stringify({ frameworks: registry.gapFrameworkCodes(), findings: many, options: { include_evidence_requirements: true } }));
  const output = analyze(registry, { body, tier: 'enterprise', id: 'large', createdAt: '2026-11-24T10:00:00.000Z' });
  if (!output.ok) throw new Error(JSON.stringify(output.error));
  t.ok(output.payload.byteLength > 8 * 1024 * 1024, `a large result (${output.payload.byteLength} bytes)`);
  t.same(output.dataMembers, scanMemberSpans(Buffer.from(output.payload)), 'spans noted while writing = spans found by reading');
});
