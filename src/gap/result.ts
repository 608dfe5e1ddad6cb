import { performance } from 'node:perf_hooks';
import type { AnalysisOptions, AnalysisOutcome, CommonGap, ControlAssessment, Finding, FrameworkOutcome, Remediation, StaleEvidence } from './engine.js';
import { RESULT_FORMAT_VERSION, SCORING_VERSION, type PostureTally } from './scoring.js';
import type { AnalysisResult as AnalysisResultSchema, NotRecognisedResults } from '../schemas/gap-result.js';
import type { DataMemberSpans } from './variant.js';
import type { CoveragePlan } from './coverage-plan.js';

export interface ResultContext {
  id: string;
  createdAt: string;
  registryVersion: string;
  /** When the analysis started (performance.now()): meta.processing_time_ms runs to the writing of meta. */
  startedAt: number;
  options: AnalysisOptions;
  /** The scope the analysis is filed under (docs/posture.md); null for none. */
  scope: string | null;
  coveragePlan: CoveragePlan;
}

export interface Resource {
  type?: string;
  id?: string;
  provider?: string;
}

/** Typed by its schema (src/schemas/gap-result.ts), which the OpenAPI document publishes. */
export type AnalysisResult = AnalysisResultSchema;
type Data = AnalysisResult['data'];
type Meta = AnalysisResult['meta'];

/**
 * The resources (artifacts) the findings name, each once: gaps refer to them by index, so a
 * finding that reaches many controls does not repeat its artifact in each (measured: repeating it
 * made a 10,000-finding result 31 % larger and 40 % slower to build).
 */
class ResourceTable {
  readonly list: Resource[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly byFinding = new Map<Finding, number>();

  /** The index of the finding's resource; -1 when it names none. */
  indexOf(finding: Finding): number {
    let index = this.byFinding.get(finding);
    if (index !== undefined) return index;
    index = -1;
    const artifact = finding.artifact;
    if (artifact && (artifact.type !== undefined || artifact.id !== undefined)) {
      // Only the fields the request schema names: a finding's extra members are accepted and ignored.
      const { type, id, provider } = artifact;
      const key = `${type ?? ''}\u0000${id ?? ''}\u0000${provider ?? ''}`;
      index = this.byKey.get(key) ?? -1;
      if (index < 0) {
        const resource: Resource = {};
        if (type !== undefined) resource.type = type;
        if (id !== undefined) resource.id = id;
        if (provider !== undefined) resource.provider = provider;
        index = this.list.push(resource) - 1;
        this.byKey.set(key, index);
      }
    }
    this.byFinding.set(finding, index);
    return index;
  }

  /** Distinct resource indices of a gap's findings, in the gap's finding order. */
  ofGap(gap: ControlAssessment): number[] {
    const indices = new Set<number>();
    for (const reach of gap.reaches) {
      const index = this.indexOf(reach.finding);
      if (index >= 0) indices.add(index);
    }
    return [...indices];
  }
}

/**
 * An analysis of a scanner file: the file's results that resolved to no signal never became
 * findings, yet they are what the user sent; they count as unmapped and are named (docs/ingest.md).
 */
function withUnrecognisedResults(findings: AnalysisOutcome['findings'], extraMeta: Record<string, unknown>): Data['summary']['findings'] {
  const imported = extraMeta.import as { not_recognised?: NotRecognisedResults } | undefined;
  const notRecognised = imported?.not_recognised;
  return notRecognised ? { ...findings, unmapped: findings.unmapped + notRecognised.results, not_recognised: notRecognised } : findings;
}

/**
 * The analysis result in both of the spec's shapes at once (2.7), as JSON text: Variant A
 * (analysis_id, summary, frameworks[]) and Variant B (id, posture, by_framework, cross_framework).
 *
 * Written as text rather than built as objects for JSON.stringify, because the two variants
 * repeat each other: every gap's remediation, every finding's reference and the common gaps appear
 * two or more times, and registry text (control titles) in every analysis. Here each repeated part
 * is escaped once and its text reused; registry text is escaped once per thread. Per byte this is
 * no faster than JSON.stringify; the gain is what is not written twice, and less garbage
 * (figures: docs/benchmarks.md). The shape is the schema's:
 * a test checks every result against it with no member missing or extra, for each combination of
 * options.
 *
 * The text's parts are written into the answer's bytes piece by piece (`writeResultBytes`), not
 * joined into one string, for the memory they are made in; `memory` is where the bytes go when
 * they fit. Where each member of `data` lies in the bytes comes with them, so that one variant
 * alone is answered without parsing (src/gap/variant.ts).
 */
export function resultJson(outcome: AnalysisOutcome, context: ResultContext, extraMeta: Record<string, unknown> = {}, memory?: ArrayBuffer): ResultBytes {
  const { overall } = outcome;
  const summary: Data['summary'] = {
    overall_posture: overall.status,
    posture_score: overall.score,
    coverage: overall.coverage,
    total_controls: overall.controls_total,
    total_controls_assessed: overall.controls_total - overall.counts.not_assessed,
    controls_by_status: overall.counts,
    critical_gaps: overall.critical_gaps,
    high_risk_gaps: overall.high_gaps,
    findings: withUnrecognisedResults(outcome.findings, extraMeta),
  };
  const posture: Data['posture'] = { status: overall.status, score: overall.score };
  const options: Data['options'] = context.options;
  const frameworksRequested: Data['frameworks_requested'] = outcome.frameworks.map((f) => f.code);
  const writer = new ResultWriter();
  const { out } = writer;
  /** Part indices where each member of `data` starts and ends, in pairs. */
  const boundaries: number[] = [];
  const member = (name: keyof Data, write: () => void) => {
    if (boundaries.length) out.push(',');
    boundaries.push(out.length);
    out.push(`"${name}":`);
    write();
    boundaries.push(out.length);
  };
  const value = (json: string) => () => out.push(json);
  out.push('{"data":{');
  member('analysis_id', value(JSON.stringify(context.id)));
  member('id', value(JSON.stringify(context.id)));
  member('created_at', value(JSON.stringify(context.createdAt)));
  member('status', value('"completed"'));
  member('frameworks_requested', value(JSON.stringify(frameworksRequested)));
  member('options', value(JSON.stringify(options)));
  member('scope', value(JSON.stringify(context.scope)));
  member('summary', value(JSON.stringify(summary)));
  member('posture', value(JSON.stringify(posture)));
  member('frameworks', () => {
    out.push('[');
    outcome.frameworks.forEach((framework, i) => writer.variantAFramework(framework, i === 0));
    out.push(']');
  });
  member('by_framework', () => {
    out.push('{');
    outcome.frameworks.forEach((framework, i) => writer.variantBFramework(framework, i === 0));
    out.push('}');
  });
  const commonGaps = commonGapsJson(outcome.common_gaps);
  const meta: Meta = {
    version: RESULT_FORMAT_VERSION,
    scoring_version: SCORING_VERSION,
    registry_version: context.registryVersion,
    processing_time_ms: Math.round(performance.now() - context.startedAt),
  };
  // Variant A names only common_gaps here; the synergies are in the Variant B object.
  member('cross_framework_insights', () => {
    out.push('{"common_gaps":');
    out.append(commonGaps);
    out.push('}');
  });
  member('cross_framework', () => {
    out.push('{"common_gaps":');
    out.append(commonGaps);
    out.push(',"framework_synergies":', JSON.stringify(outcome.synergies), '}');
  });
  member('resources', value(JSON.stringify(writer.resources.list)));
  member('coverage_plan', value(JSON.stringify(context.coveragePlan)));
  out.push('},"meta":', JSON.stringify({ ...meta, ...extraMeta }), '}');
  // Joined into pieces at the end: each byte is copied once, not again at every level of nesting.
  const result = writeResultBytes(out.parts, out.length, boundaries, memory);
  out.release();
  return result;
}

/** An analysis result as the worker hands it over: its JSON bytes, and where each member of `data` lies in them. */
export interface ResultBytes {
  bytes: Buffer;
  memberSpans: DataMemberSpans;
}

/**
 * Pieces of at most about this many UTF-16 units: V8 makes a string of more than 128 KB in its
 * large-object space, in pages mapped for it alone and given back at the next GC, so one joined
 * answer cost page faults every analysis; pieces of this size are made in the young generation,
 * whose pages stay mapped (figures: docs/benchmarks.md).
 */
const RESULT_PIECE_UNITS = 32 * 1024;

/**
 * The parts (the first `count` of `parts`) in UTF-8, joined in order into pieces of about
 * RESULT_PIECE_UNITS (a piece ends with the part that reaches the size) and at each of `breaks`
 * (part indices, ascending), whose byte offsets become the member spans. Each piece is written as
 * soon as it is made, so that it dies young (made all before the first was written, a scavenge
 * in between copied them all; figures: docs/benchmarks.md).
 * The bytes are written at the start of `memory` (an earlier answer's, given back to a worker:
 * src/pool.ts `AnswerBuffers`) when the text fits there, else in new memory of their own.
 */
export function writeResultBytes(parts: readonly string[], count: number, breaks: readonly number[], memory?: ArrayBuffer): ResultBytes {
  let units = 0;
  for (let i = 0; i < count; i++) units += parts[i].length;
  const sink = new ByteSink(units, memory);
  const memberSpans: DataMemberSpans = [];
  let from = 0;
  let pieceUnits = 0;
  let next = 0;
  // -1 once every break is passed: reading past the end of `breaks` gave `undefined`, which
  // deoptimized this loop's compiled code at the end of every analysis (--trace-deopt).
  let nextBreak = breaks.length > 0 ? breaks[0] : -1;
  for (let i = 0; i <= count; i++) {
    if (i === nextBreak) {
      if (i > from) sink.write(parts.slice(from, i).join(''));
      from = i;
      pieceUnits = 0;
      while (nextBreak === i) {
        memberSpans.push(sink.length);
        next++;
        nextBreak = next < breaks.length ? breaks[next] : -1;
      }
    }
    if (i === count) break;
    pieceUnits += parts[i].length;
    if (pieceUnits >= RESULT_PIECE_UNITS) {
      sink.write(parts.slice(from, i + 1).join(''));
      from = i + 1;
      pieceUnits = 0;
    }
  }
  if (from < count) sink.write(parts.slice(from, count).join(''));
  return { bytes: sink.bytes(), memberSpans };
}

/**
 * UTF-8 written one piece after another. Sized first for one byte per UTF-16 unit, the least the
 * text can take; text outside ASCII takes more, and the memory then grows.
 */
class ByteSink {
  private memory: Buffer;
  length = 0;

  constructor(units: number, memory: ArrayBuffer | undefined) {
    this.memory = memory && memory.byteLength >= units ? Buffer.from(memory) : Buffer.allocUnsafeSlow(units);
  }

  write(piece: string): void {
    const size = Buffer.byteLength(piece);
    if (this.length + size > this.memory.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(2 * this.memory.length, this.length + size));
      this.memory.copy(grown, 0, 0, this.length);
      this.memory = grown;
    }
    this.memory.write(piece, this.length);
    this.length += size;
  }

  /** The bytes written, at the start of the memory (which a worker transfers whole). */
  bytes(): Buffer {
    return this.memory.subarray(0, this.length);
  }
}

/**
 * Registry text as JSON, escaped once per thread and kept: control references keyed by the
 * index's control object, step texts by the string itself (the index holds each once), evidence
 * lists by the index's array, and the few mapping parts and framework–control pairs by their two
 * values (nested maps: no key string built per lookup). `make` is a plain function, so a lookup
 * allocates nothing.
 */
function kept<K>(cache: { get(key: K): string | undefined; set(key: K, text: string): unknown }, key: K, make: (key: K) => string): string {
  let text = cache.get(key);
  if (text === undefined) cache.set(key, (text = make(key)));
  return text;
}

function keptPair<A, B>(cache: Map<A, Map<B, string>>, first: A, second: B, make: (first: A, second: B) => string): string {
  let bySecond = cache.get(first);
  if (!bySecond) cache.set(first, (bySecond = new Map()));
  let text = bySecond.get(second);
  if (text === undefined) bySecond.set(second, (text = make(first, second)));
  return text;
}

type Control = ControlAssessment['control'];
const controlRefA = new WeakMap<Control, string>();
const controlRefB = new WeakMap<Control, string>();
const quotedSteps = new Map<string, string>();
const evidenceLists = new WeakMap<readonly string[], string>();
/** A cited finding's mapping, `,"relationship":…,"confidence":…}`. */
const mappingTails = new Map<string, Map<number, string>>();
/** `{"framework":…,"control_id":…}`, as a common gap names each control. */
const controlsAffected = new Map<string, Map<string, string>>();

const writeRefA = (control: Control) => `{"control":${JSON.stringify({ id: control.id, title: control.title })},"status":`;
const writeRefB = (control: Control) => `{"control":${JSON.stringify({ id: control.id, title: control.title, category: control.category })},"status":`;
const writeEvidence = (evidence: readonly string[]) => `,"evidence_requirements":${JSON.stringify(evidence)}`;
const writeMappingTail = (relationship: string, confidence: number) => `,"relationship":${word(relationship)},"confidence":${confidence}}`;
const writeControlAffected = (framework: string, controlId: string) => JSON.stringify({ framework, control_id: controlId });

const refA = (control: Control) => kept(controlRefA, control, writeRefA);
const refB = (control: Control) => kept(controlRefB, control, writeRefB);
const quotedStep = (step: string) => kept(quotedSteps, step, JSON.stringify);
const evidenceJson = (evidence: readonly string[]) => kept(evidenceLists, evidence, writeEvidence);
const mappingTail = (relationship: string, confidence: number) => keptPair(mappingTails, relationship, confidence, writeMappingTail);
const controlAffected = (framework: string, controlId: string) => keptPair(controlsAffected, framework, controlId, writeControlAffected);

/**
 * The common gaps as parts of JSON text, made once and placed under both variants' names. Left as
 * parts, not joined: joined, they were one string in V8's large-object space (217 KB for 500
 * findings), whose pages are new every analysis.
 */
function commonGapsJson(gaps: readonly CommonGap[]): string[] {
  const out = ['['];
  gaps.forEach((gap, i) => {
    const { id, title, remediation_hint } = gap.signal;
    const frameworks = gap.affects.map((affected) => affected.framework);
    out.push(
      i ? ',{"signal_id":' : '{"signal_id":',
      JSON.stringify(id),
      ',"description":',
      JSON.stringify(`${title} (${id}) opens gaps in ${frameworks.length} frameworks`),
      ',"affects_frameworks":',
      JSON.stringify(frameworks),
      ',"controls_affected":[',
    );
    let first = true;
    for (const { framework, controls } of gap.affects) {
      for (const control of controls) {
        if (!first) out.push(',');
        first = false;
        out.push(controlAffected(framework, control));
      }
    }
    const overlap = `One fix closes ${gap.control_count} control gaps across ${frameworks.join(', ')}: ${remediation_hint}`;
    out.push('],"remediation_overlap":', JSON.stringify(overlap), '}');
  });
  out.push(']');
  return out;
}

/**
 * A result's parts, written into one array that the thread keeps and every analysis reuses. An
 * array grown by push() is copied into a larger one at each step, and past 16,384 parts (128 KB)
 * V8 makes each copy in pages mapped for it alone, touched for the first time and given back at
 * the next GC: most of a worker's page faults per analysis (figures: docs/benchmarks.md). The
 * kept array stays as large as the largest result the thread has made (3 MB for 10,000 findings).
 */
class PartList {
  /** The thread's array between results: a result takes it, and gives it back emptied. */
  private static kept: string[] = [];
  readonly parts: string[];
  length = 0;

  constructor() {
    this.parts = PartList.kept;
    PartList.kept = [];
  }

  push(a: string, b?: string, c?: string, d?: string, e?: string): void {
    const { parts } = this;
    let n = this.length;
    parts[n++] = a;
    if (b !== undefined) {
      parts[n++] = b;
      if (c !== undefined) {
        parts[n++] = c;
        if (d !== undefined) {
          parts[n++] = d;
          if (e !== undefined) parts[n++] = e;
        }
      }
    }
    this.length = n;
  }

  /** Appends `more` one by one: a spread into push() would pass each as an argument, too many for the stack at 10,000 findings. */
  append(more: readonly string[]): void {
    for (const part of more) this.push(part);
  }

  /** Gives the array back for the next result, its parts dropped so that they do not outlive this one. */
  release(): void {
    this.parts.fill('', 0, this.length);
    this.length = 0;
    PartList.kept = this.parts;
  }
}

/** An object's members as JSON.stringify writes them, the object left open for the members written after them. */
const openObject = (members: object) => JSON.stringify(members).slice(0, -1);

/** Vocabulary values (statuses, severities, relationships, efforts) need no escaping. */
const word = (value: string | null) => (value === null ? 'null' : `"${value}"`);

/**
 * One result's text as a list of parts, joined once; the parts both variants write are made once.
 * Each gap or control starts `{"control":{…},"status":` (refA, refB): one cached part per control.
 */
class ResultWriter {
  readonly out = new PartList();
  readonly resources = new ResourceTable();
  /** A finding as gaps cite it, without the closing brace: `{"finding_id":…,"signal_id":…,"finding_status":…`. */
  private readonly citations = new Map<Finding, string>();
  /** A gap's remediation after its priority (`"effort":…,"guidance":…,"steps":[…]}`), for Variant A then B. */
  private readonly remediationTails = new Map<Remediation, string>();

  variantAFramework(framework: FrameworkOutcome, first: boolean): void {
    const { out } = this;
    const head: Omit<Data['frameworks'][number], 'gaps'> = {
      code: framework.code,
      name: framework.name,
      version: framework.version,
      posture: { status: framework.status, score: framework.score, coverage: framework.coverage },
      controls_by_status: framework.counts,
    };
    if (framework.custom) markCustom(head, framework.custom.revision);
    out.push(first ? '' : ',', openObject(head), ',"gaps":[');
    framework.gaps.forEach((gap, i) => {
      if (i) out.push(',');
      out.push(refA(gap.control), `${word(gap.status)},"confidence":${gap.confidence},"severity":${word(gap.severity)}`);
      if (gap.remediation) out.push(`,"remediation":{"priority":${gap.remediation.priority},`, this.remediationTail(gap.remediation));
      if (gap.evidence) out.push(evidenceJson(gap.evidence));
      out.push('}');
    });
    out.push('],"stale_evidence":[');
    framework.stale.forEach((stale, i) => {
      if (i) out.push(',');
      out.push(refA(stale.control), `${word(stale.status)},"last_observed_at":${JSON.stringify(lastObserved(stale))}}`);
    });
    out.push(']}');
  }

  variantBFramework(framework: FrameworkOutcome, first: boolean): void {
    const { out } = this;
    const posture: StoredFrameworkPosture = {
      status: framework.status,
      score: framework.score,
      coverage: framework.coverage,
      controls_total: framework.controls_total,
      controls_compliant: framework.counts.compliant,
      controls_partial: framework.counts.partially_compliant,
      controls_non_compliant: framework.counts.non_compliant,
      controls_not_assessed: framework.counts.not_assessed,
      critical_gaps: framework.critical_gaps,
      high_gaps: framework.high_gaps,
    };
    const head: Pick<Data['by_framework'][string], 'name' | 'version' | 'posture' | 'custom' | 'revision'> = {
      name: framework.name,
      version: framework.version,
      posture,
    };
    if (framework.custom) markCustom(head, framework.custom.revision);
    out.push(first ? '' : ',', JSON.stringify(framework.code), ':', openObject(head), ',"gaps":[');
    framework.gaps.forEach((gap, i) => {
      if (i) out.push(',');
      out.push(refB(gap.control), `${word(gap.status)},"severity":${word(gap.severity)},"confidence":${gap.confidence},"findings":[`);
      // Every part of a cited finding is text made before: a 10,000-finding result cites 67,000.
      gap.reaches.forEach((reach, j) => {
        if (j) out.push(',');
        out.push(this.citation(reach.finding), mappingTail(reach.relationship, reach.confidence));
      });
      // Indices into data.resources: the assets the gap's findings name, so a report can trace it.
      out.push(`],"resources":[${this.resources.ofGap(gap).join(',')}]`);
      if (gap.remediation)
        out.push(
          `,"remediation":{"priority":${word(gap.remediation.priority_label)},"priority_rank":${gap.remediation.priority},`,
          this.remediationTail(gap.remediation),
        );
      if (gap.evidence) out.push(evidenceJson(gap.evidence));
      out.push('}');
    });
    out.push('],"compliant":[');
    framework.compliant.forEach((control, i) => {
      if (i) out.push(',');
      out.push(refB(control.control), `${word(control.status)},"confidence":${control.confidence},"validated_by":[`);
      control.reaches.forEach((reach, j) => {
        if (j) out.push(',');
        out.push(this.citation(reach.finding), '}');
      });
      out.push(']}');
    });
    // Controls whose passing evidence is past the age limit: what it would have shown, and when it was seen.
    out.push('],"stale_evidence":[');
    framework.stale.forEach((stale, i) => {
      if (i) out.push(',');
      out.push(refB(stale.control), `${word(stale.status)},"last_observed_at":${JSON.stringify(lastObserved(stale))},"findings":[`);
      stale.reaches.forEach((reach, j) => {
        if (j) out.push(',');
        out.push(this.citation(reach.finding), `,"observed_at":${JSON.stringify(reach.finding.observed_at)}}`);
      });
      out.push(']}');
    });
    out.push(']}');
  }

  private citation(finding: Finding): string {
    return kept(this.citations, finding, writeCitation);
  }

  private remediationTail(remediation: Remediation): string {
    return kept(this.remediationTails, remediation, writeRemediationTail);
  }
}

/** The latest observation among a control's stale passing findings (each has one: undated findings are never stale). */
function lastObserved(stale: StaleEvidence): string {
  let latest = '';
  for (const reach of stale.reaches) if (reach.finding.observed_at! > latest) latest = reach.finding.observed_at!;
  return new Date(latest).toISOString();
}

/** An account's own framework says so, with the revision assessed: the analysis stays readable whatever becomes of the framework. */
function markCustom(head: { custom?: true; revision?: number }, revision: number): void {
  head.custom = true;
  head.revision = revision;
}

const writeCitation = (finding: Finding) =>
  `{"finding_id":${JSON.stringify(finding.id)},"signal_id":${JSON.stringify(finding.signal_id)},"finding_status":${word(finding.status)}`;
const writeRemediationTail = ({ effort, guidance, steps }: Remediation) =>
  `"effort":${word(effort)},"guidance":${JSON.stringify(guidance)},"steps":[${steps.map(quotedStep).join(',')}]}`;

export type StoredFrameworkPosture = Data['by_framework'][string]['posture'];

/** A stored framework posture (Variant B) as a tally to pool with others (compare, filtered exports). */
export function storedTally(posture: StoredFrameworkPosture): PostureTally {
  return {
    counts: {
      compliant: posture.controls_compliant,
      partially_compliant: posture.controls_partial,
      non_compliant: posture.controls_non_compliant,
      not_assessed: posture.controls_not_assessed,
    },
    critical_gaps: posture.critical_gaps,
    high_gaps: posture.high_gaps,
  };
}
