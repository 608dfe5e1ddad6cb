/**
 * Contract test over the real registry/sources: compiles them and checks the acceptance
 * invariants of the registry content (catalog sizes, id formats, references, coverage sizes).
 */
import t from 'tap';
import { compileRegistry, formatIssue, RegistrySourceError } from '../../registry/compile.js';
import { SIGNAL_ID, TEMPLATE_ID } from '../../registry/lib/integrity.js';
import { loadModel } from '../../registry/review.js';
import { defaultSourcesDir } from '../../src/paths.js';
import { Registry } from '../../src/registry/registry.js';
import { assess, MAX_REMEDIATION_STEPS, VERIFICATION_STEP_TEXT } from '../../src/gap/engine.js';
import { gapIndexOf } from '../../src/gap/gap-index.js';
import { ARTIFACT_CATEGORIES, DOMAIN_CODES } from '../../src/schemas/registry-source.js';
import { GAP_FRAMEWORK_CODES } from '../../src/core/vocabulary.js';
import { tempDir } from './helpers.js';

const CATALOG_SIZES: Record<string, number> = {
  HIPAA: 54,
  CMMC: 110,
  SOC2: 61,
  ISO27001: 93,
  PCIDSS: 63,
  GDPR: 50,
  NISTCSF: 106,
  HITRUST: 156,
  CIS: 153,
  FEDRAMP: 410,
  CCPA: 35,
};
const SCANNERS = ['prowler', 'checkov', 'trivy'];

const outDir = tempDir(t);
let registry!: Registry;
let compiled = false;
try {
  const result = await compileRegistry({ sourcesDir: defaultSourcesDir, outDir });
  t.comment(`built in ${result.durationMs} ms: ${JSON.stringify(result.manifest.counts)}`);
  registry = Registry.open(outDir);
  t.teardown(() => registry.close());
  compiled = true;
} catch (error) {
  if (!(error instanceof RegistrySourceError)) throw error;
  t.fail(`registry/sources do not compile: ${error.issues.length} error(s)`, { errors: error.issues.slice(0, 50).map(formatIssue) });
}
/** The invariants below need a compiled registry; without one they are skipped, not failed again. */
const needsBuild = { skip: compiled ? false : 'registry/sources do not compile' };

t.test('frameworks and catalogs', needsBuild, async (t) => {
  t.equal(registry.frameworks().length, 15, '15 frameworks');
  t.same(
    registry
      .frameworks()
      .filter((f) => f.gap_analysis)
      .map((f) => f.code),
    [...GAP_FRAMEWORK_CODES],
  );
  for (const [code, size] of Object.entries(CATALOG_SIZES)) {
    t.equal(registry.framework(code)?.control_count, size, `${code} has ${size} controls`);
    t.equal(registry.controls(code).length, size, `${code} controls listing`);
  }
});

t.test('signals: sizes, ids, primary mappings', needsBuild, async (t) => {
  const ids = registry.signalIds();
  t.ok(ids.length >= 400, `>= 400 signals (${ids.length})`);
  t.equal(registry.domains().length, 12, '12 domains');
  for (const domain of DOMAIN_CODES) {
    const count = registry.signalIds({ domain }).length;
    t.ok(count >= (domain === 'GEN' ? 40 : 20), `${domain} has ${count} signals`);
  }
  const badIds = ids.filter((id) => {
    const match = SIGNAL_ID.exec(id);
    const signal = registry.signal(id)!;
    return !match || match[1] !== signal.domain || match[2] !== signal.category;
  });
  t.same(badIds, [], 'every signal id has the registry form, its domain and its category');
  // Technical GEN signals reach controls through the objectives they evidence (docs/registry.md):
  // they need mappings, or a place in an objectives file's unassigned list with the reason.
  const technical = (id: string) => registry.signal(id)!.domain === 'GEN' && /-\d{4}$/.test(id);
  const superseded = (id: string) => registry.signal(id)!.status === 'superseded';
  const noPrimary = ids.filter(
    (id) => !technical(id) && !superseded(id) && !registry.mappingsOfSignal(id).some((m) => m.relationship === 'primary' && !m.derived),
  );
  t.same(noPrimary, [], 'every active signal written by people has a primary mapping');
  const { model } = loadModel(defaultSourcesDir);
  t.same(
    ids.filter((id) => technical(id) && registry.mappingsOfSignal(id).length === 0 && !model.unassignedSignals.has(id)),
    [],
    'every technical signal has mappings, or is listed as evidencing no objective with the reason',
  );
  const titles = new Set(ids.map((id) => registry.signal(id)!.title.toLowerCase()));
  t.equal(titles.size, ids.length, 'signal titles are unique');
});

t.test('no dangling references', needsBuild, async (t) => {
  const dangling: string[] = [];
  const controls = new Set(registry.frameworks().flatMap((f) => registry.controls(f.code).map((c) => `${f.code}|${c.id}`)));
  for (const id of registry.signalIds()) {
    const signal = registry.signal(id)!;
    for (const type of signal.detection.artifact_types) if (!registry.artifactType(type)) dangling.push(`${id} → artifact type ${type}`);
    for (const m of registry.mappingsOfSignal(id)) {
      if (!controls.has(`${m.framework}|${m.control_id}`)) dangling.push(`${id} → ${m.framework} ${m.control_id}`);
      if (m.confidence < 0 || m.confidence > 1) dangling.push(`${id} → confidence ${m.confidence}`);
    }
  }
  for (const id of registry.findingTemplateIds()) {
    const template = registry.findingTemplate(id)!;
    if (!TEMPLATE_ID.test(id)) dangling.push(`template id ${id}`);
    if (!registry.signal(template.signal_id)) dangling.push(`${id} → signal ${template.signal_id}`);
    for (const type of template.applicable_artifacts) if (!registry.artifactType(type)) dangling.push(`${id} → artifact type ${type}`);
  }
  for (const m of registry.toolMappings().items) {
    if (!registry.findingTemplate(m.finding_template_id)) dangling.push(`${m.id} → template ${m.finding_template_id}`);
    if (!registry.tool(m.tool_id)) dangling.push(`${m.id} → tool ${m.tool_id}`);
  }
  t.same(dangling, []);
});

t.test('artifact types, templates, tools, tool mappings', needsBuild, async (t) => {
  const types = registry.artifactTypeIds();
  t.ok(types.length >= 60, `>= 60 artifact types (${types.length})`);
  for (const category of ARTIFACT_CATEGORIES) t.ok(registry.artifactTypeIds({ category }).length > 0, `artifact types in ${category}`);
  const templates = registry.findingTemplateIds().length;
  t.ok(templates >= 300, `>= 300 finding templates (${templates})`);
  const tools = registry.tools().length;
  t.ok(tools >= 15, `>= 15 tools (${tools})`);
  let scannerMappings = 0;
  for (const tool of SCANNERS) {
    const count = registry.toolMappingIds({ tool_id: tool }).length;
    t.ok(count > 0, `${tool} has tool mappings (${count})`);
    scannerMappings += count;
  }
  t.ok(scannerMappings >= 1000, `>= 1000 tool mappings over ${SCANNERS.join(', ')} (${scannerMappings})`);
});

t.test('derived data is in bounds', needsBuild, async (t) => {
  const all = registry.mappings({}, { offset: 0, limit: Number.MAX_SAFE_INTEGER }).items;
  t.ok(
    all.every((m) => m !== undefined),
    'every mapping number resolves (signals without mappings included)',
  );
  t.same(
    all
      .filter((_, i) => i % 997 === 0)
      .filter((m) => registry.mapping(m.id)?.id !== m.id)
      .map((m) => m.id),
    [],
    'MAP ids resolve to themselves',
  );
  const derived = all.filter((m) => m.derived);
  t.ok(derived.length > 10_000, `${derived.length} derived mappings`);
  const crosswalk = derived.filter((m) => m.provenance.kind === 'crosswalk');
  t.ok(
    crosswalk.every((m) => m.provenance.source && m.provenance.via && m.confidence >= 0.5 && m.confidence < 0.7 && m.relationship === 'partial'),
    'crosswalk derivations name their file and row and stay partial, below the default threshold',
  );
  // The rest come through security objectives, each naming its objective and the judged relationship.
  const throughObjectives = derived.filter((m) => m.provenance.kind !== 'crosswalk');
  t.ok(
    throughObjectives.every((m) => m.provenance.kind === 'objective' && m.provenance.objective && m.provenance.set_relationship),
    'every other derived mapping comes through an objective',
  );
  t.ok(
    throughObjectives.every((m) => m.confidence >= 0.7 === ['equal', 'subset_of'].includes(m.provenance.set_relationship!)),
    'only equal and subset_of links reach the default threshold',
  );
  const { overlaps, stats } = registry.crosswalkOverlaps();
  t.equal(overlaps.length, 55, 'every pair of the 11 gap-analysis frameworks');
  t.equal(stats.frameworks_analyzed, 11);
});

t.test('remediation steps of real gaps: fixes first, one re-scan check last, at most six', needsBuild, async (t) => {
  const findings = registry.signalIds().map((signal_id, i) => ({ id: `f${i}`, signal_id, status: 'open' as const }));
  const outcome = assess(gapIndexOf(registry), findings, [...GAP_FRAMEWORK_CODES], {
    include_resolved: false,
    min_confidence: 0.7,
    include_remediation: true,
    include_evidence_requirements: false,
    include_cross_framework: false,
  });
  const gaps = outcome.frameworks.flatMap((f) => f.gaps);
  t.ok(gaps.length > 500, `${gaps.length} gaps`);
  const misplaced = gaps.filter(({ remediation }) => {
    const steps = remediation!.steps;
    const checks = steps.filter((s) => /^Re-run the/.test(s));
    return steps.length > MAX_REMEDIATION_STEPS || checks.length > 1 || (checks.length === 1 && steps.at(-1) !== VERIFICATION_STEP_TEXT);
  });
  t.same(
    misplaced.map((g) => `${g.framework} ${g.control.id}`),
    [],
  );
  t.ok(
    gaps.every((g) => g.remediation!.steps.length > 0),
    'every gap has at least one step',
  );
});
