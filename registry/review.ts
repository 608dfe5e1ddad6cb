/**
 * The precision review of the mappings the gap analysis counts by default (confidence >= 0.7):
 * each release, a seeded random sample stratified by mapping class and framework is judged against
 * the control text by a reviewer who did not author the mapping, and the verdicts are committed in
 * registry/review/precision-<registry_version>.yaml. docs/registry.md ("The precision review")
 * describes the method; `check` is what CI runs.
 *
 *   draw  → a new sample file (verdicts empty) for the current sources
 *   seal  → after the verdicts are in and wrong mappings are fixed, record the mappings hash
 *   check → fails when a verdict is missing, a reviewer judged their own mapping, a mapping judged
 *           wrong is still served at >= 0.7, or the sample is older than the content
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import yaml from 'js-yaml';
import { GAP_FRAMEWORK_CODES } from '../src/core/vocabulary.js';
import { allMappings, crosswalkPairs, isTechnical, type MappingNode } from './lib/derive.js';
import { buildModel } from './lib/integrity.js';
import { Issues, type SourceIssue } from './lib/issues.js';
import type { RegistryModel } from './lib/model.js';
import { listSourceFiles, type ParsedSources, parseSources } from './lib/read-sources.js';

/** The default gap-analysis threshold: the mappings a user meets. */
export const REVIEWED_MIN_CONFIDENCE = 0.7;
export const DEFAULT_SAMPLE_SIZE = 240;
/** Every (class, framework) cell with mappings gets at least this many draws, so each is represented. */
export const MIN_PER_CELL = 3;
export const VERDICTS = ['exact', 'partial', 'wrong'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * technical-objective: a scanner condition through a security objective; domain-objective: an
 * authored signal through an objective (its cross-framework reach); authored: a mapping written on
 * the signal itself; crosswalk: derived from a published crosswalk row.
 */
export const MAPPING_CLASSES = ['technical-objective', 'domain-objective', 'authored', 'crosswalk'] as const;
export type MappingClass = (typeof MAPPING_CLASSES)[number];

export interface ReviewEntry {
  signal_id: string;
  signal_title: string;
  framework: string;
  control_id: string;
  control_title: string;
  class: MappingClass;
  relationship: string;
  confidence: number;
  objective?: string;
  rationale: string;
  /** Who made the mapping: an objectives file's author, or the signal file for authored mappings. */
  author: string;
  reviewer?: string;
  verdict?: Verdict;
  reason?: string;
}

export interface ReviewFile {
  registry_version: string;
  seed: number;
  drawn: string;
  /** sha256 of every mapping served at >= 0.7 (signal, framework, control, relationship, confidence) when the review was sealed. */
  mappings_hash?: string;
  /** Mappings at >= 0.7 per class and framework when the sample was drawn (the estimate's weights). */
  population: Record<string, Record<string, number>>;
  sample: ReviewEntry[];
}

export interface ReviewFigures {
  judged: number;
  /** Population-weighted shares in percent, each with a 95 % interval. */
  exact: Estimate;
  partial: Estimate;
  wrong: Estimate;
  by_class: Array<{ class: MappingClass; judged: number; exact: number; partial: number; wrong: number }>;
}

export interface Estimate {
  pct: number;
  low: number;
  high: number;
}

export function classOf(model: RegistryModel, m: MappingNode): MappingClass {
  if (m.provenance.kind === 'objective') return isTechnical(model.signalById.get(m.signal_id)!) ? 'technical-objective' : 'domain-objective';
  if (m.provenance.kind === 'crosswalk' && m.derived) return 'crosswalk';
  return 'authored';
}

function authorOf(model: RegistryModel, m: MappingNode): string {
  if (m.provenance.kind === 'objective') return model.objectiveById.get(m.provenance.objective!)?.author ?? 'unknown';
  return `signal authors (${model.signalById.get(m.signal_id)?.file ?? 'unknown'})`;
}

const GAP = GAP_FRAMEWORK_CODES as readonly string[];

export function servedMappings(mappings: MappingNode[]): MappingNode[] {
  return mappings.filter((m) => m.confidence >= REVIEWED_MIN_CONFIDENCE && GAP.includes(m.framework));
}

export function mappingsHash(mappings: MappingNode[]): string {
  const lines = servedMappings(mappings)
    .map((m) => `${m.signal_id}|${m.framework}|${m.control_id}|${m.relationship}|${m.confidence}`)
    .sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** mulberry32: a small seeded generator, so a draw is reproducible from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stratified random sample: cells are (class, framework); each gets MIN_PER_CELL or its proportional share. */
export function drawSample(
  model: RegistryModel,
  mappings: MappingNode[],
  seed: number,
  size = DEFAULT_SAMPLE_SIZE,
  drawn = new Date().toISOString().slice(0, 10),
): ReviewFile {
  const cells = new Map<string, MappingNode[]>();
  for (const m of servedMappings(mappings)) {
    const key = `${classOf(model, m)}|${m.framework}`;
    (cells.get(key) ?? cells.set(key, []).get(key)!).push(m);
  }
  const total = [...cells.values()].reduce((n, list) => n + list.length, 0);
  const next = random(seed);
  const sample: ReviewEntry[] = [];
  const population: ReviewFile['population'] = {};
  for (const key of [...cells.keys()].sort()) {
    const list = cells.get(key)!.sort((a, b) => (`${a.signal_id}|${a.control_id}` < `${b.signal_id}|${b.control_id}` ? -1 : 1));
    const [cls, framework] = key.split('|');
    (population[cls] ??= {})[framework] = list.length;
    const n = Math.min(list.length, Math.max(MIN_PER_CELL, Math.round((size * list.length) / total)));
    const pool = [...list];
    for (let i = 0; i < n; i++) {
      const m = pool.splice(Math.floor(next() * pool.length), 1)[0];
      sample.push({
        signal_id: m.signal_id,
        signal_title: model.signalById.get(m.signal_id)!.title,
        framework: m.framework,
        control_id: m.control_id,
        control_title: m.control_title,
        class: cls as MappingClass,
        relationship: m.relationship,
        confidence: m.confidence,
        ...(m.provenance.objective ? { objective: m.provenance.objective } : {}),
        rationale: m.rationale,
        author: authorOf(model, m),
      });
    }
  }
  return { registry_version: model.meta.registry_version, seed, drawn, population, sample };
}

/** Wilson score interval for k of n, in percent. */
function wilson(k: number, n: number): Estimate {
  if (n === 0) return { pct: 0, low: 0, high: 100 };
  const z = 1.96;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  const r = (x: number) => Math.round(1000 * x) / 10;
  return { pct: r(p), low: r(Math.max(0, centre - half)), high: r(Math.min(1, centre + half)) };
}

/**
 * Population-weighted share of a verdict over the strata, with a normal-approximation interval from
 * the stratified variance (a stratum with no such verdict still adds the Wilson spread of its size).
 */
function weighted(review: ReviewFile, verdict: Verdict): Estimate {
  let total = 0;
  for (const byFramework of Object.values(review.population)) for (const n of Object.values(byFramework)) total += n;
  let p = 0;
  let variance = 0;
  for (const [cls, byFramework] of Object.entries(review.population)) {
    for (const [framework, size] of Object.entries(byFramework)) {
      const judged = review.sample.filter((e) => e.class === cls && e.framework === framework && e.verdict);
      if (!judged.length) continue;
      const w = size / total;
      const k = judged.filter((e) => e.verdict === verdict).length;
      const share = k / judged.length;
      p += w * share;
      const spread = wilson(k, judged.length);
      variance += w * w * Math.max((share * (1 - share)) / judged.length, ((spread.high - spread.low) / 100 / 3.92) ** 2);
    }
  }
  const r = (x: number) => Math.round(1000 * x) / 10;
  const half = 1.96 * Math.sqrt(variance);
  return { pct: r(p), low: r(Math.max(0, p - half)), high: r(Math.min(1, p + half)) };
}

export function reviewFigures(review: ReviewFile): ReviewFigures {
  const judged = review.sample.filter((e) => e.verdict);
  return {
    judged: judged.length,
    exact: weighted(review, 'exact'),
    partial: weighted(review, 'partial'),
    wrong: weighted(review, 'wrong'),
    by_class: MAPPING_CLASSES.map((cls) => {
      const own = judged.filter((e) => e.class === cls);
      return {
        class: cls,
        judged: own.length,
        exact: own.filter((e) => e.verdict === 'exact').length,
        partial: own.filter((e) => e.verdict === 'partial').length,
        wrong: own.filter((e) => e.verdict === 'wrong').length,
      };
    }).filter((c) => c.judged > 0),
  };
}

/** Why the committed review does not vouch for the current content; empty when it does. */
export function reviewProblems(review: ReviewFile, model: RegistryModel, mappings: MappingNode[]): string[] {
  const problems: string[] = [];
  if (review.registry_version !== model.meta.registry_version)
    problems.push(`the review is of registry ${review.registry_version}, the sources are ${model.meta.registry_version}: draw and judge a new sample`);
  if (review.sample.length < 200) problems.push(`the sample has ${review.sample.length} mappings; at least 200 are judged each release`);
  const served = new Map(servedMappings(mappings).map((m) => [`${m.signal_id}|${m.framework}|${m.control_id}`, m]));
  review.sample.forEach((e, i) => {
    const at = `sample ${i} (${e.signal_id} → ${e.framework} ${e.control_id})`;
    if (!e.verdict || !(VERDICTS as readonly string[]).includes(e.verdict)) problems.push(`${at}: no verdict (exact, partial or wrong)`);
    if (!e.reviewer) problems.push(`${at}: no reviewer`);
    else if (e.reviewer === e.author) problems.push(`${at}: judged by its own author ${e.author}`);
    if (e.verdict && e.verdict !== 'exact' && !(e.reason ?? '').trim()) problems.push(`${at}: a ${e.verdict} verdict needs its reason`);
    if (e.verdict === 'wrong' && served.has(`${e.signal_id}|${e.framework}|${e.control_id}`))
      problems.push(`${at}: judged wrong and still served at >= ${REVIEWED_MIN_CONFIDENCE}`);
  });
  const hash = mappingsHash(mappings);
  if (!review.mappings_hash) problems.push('the review is not sealed (csr registry review seal, once every verdict is in and wrong mappings are fixed)');
  else if (review.mappings_hash !== hash)
    problems.push(
      `the mappings served at >= ${REVIEWED_MIN_CONFIDENCE} changed after the review was sealed (${review.mappings_hash.slice(0, 12)} → ${hash.slice(0, 12)}): the sample is older than the content`,
    );
  return problems;
}

export function reviewPath(registryDir: string, version: string): string {
  return join(registryDir, 'review', `precision-${version}.yaml`);
}

export function readReview(path: string): ReviewFile | undefined {
  return existsSync(path) ? (yaml.load(readFileSync(path, 'utf8')) as ReviewFile) : undefined;
}

export function writeReview(path: string, review: ReviewFile): void {
  mkdirSync(dirname(path), { recursive: true });
  const header =
    '# Precision review of the mappings served at confidence >= 0.7 (registry/review.ts; method in docs/registry.md).\n# Reviewers fill verdict (exact | partial | wrong), reason and reviewer; a reviewer never judges a mapping they authored.\n';
  writeFileSync(path, header + yaml.dump(review, { lineWidth: 140, noRefs: true, sortKeys: false }));
}

/** The sources read and checked with the compiler's own loader and derivation; writes nothing. */
export function loadModel(sourcesDir: string): { model: RegistryModel; mappings: MappingNode[]; parsed: ParsedSources; errors: SourceIssue[] } {
  const issues = new Issues();
  const parsed = parseSources(listSourceFiles(sourcesDir), issues);
  const model = buildModel(parsed, issues);
  return { model, mappings: allMappings(model, crosswalkPairs(model)), parsed, errors: issues.errors };
}
