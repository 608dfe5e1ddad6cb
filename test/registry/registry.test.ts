import t from 'tap';
import { compileRegistry } from '../../registry/compile.js';
import { Registry } from '../../src/registry/registry.js';
import { fixtureSources, tempDir } from './helpers.js';

const S_AUDIT = 'CSR-HIPAA-AUDIT-LOG-REVIEW-001';
const S_CRYPTO = 'CSR-HIPAA-CRYPTO-DATA-AT-REST-002';
const S_MFA = 'CSR-HIPAA-IDENTITY-MFA-MISSING-003';
const S_CMMC = 'CSR-CMMC-ACCESS-ACCOUNT-MGMT-001';
const S_GEN = 'CSR-GEN-ACCESS-MFA-ENFORCED-001';

const outDir = tempDir(t);
await compileRegistry({ sourcesDir: fixtureSources(t), outDir });
const registry = Registry.open(outDir);
t.teardown(() => registry.close());

t.test('manifest and stats', async (t) => {
  t.equal(registry.manifest.registry_version, '1.0.0');
  t.equal(registry.manifest.counts.signals, 5);
  t.equal(registry.manifest.counts.frameworks, 6);
  t.equal(registry.manifest.ocsf_version, '1.8.0');
  const stats = registry.stats();
  t.match(stats, {
    registry_version: '1.0.0',
    spec_version: '1.0.0',
    last_updated: '2026-02-01T00:00:00.000Z',
    total_signals: 5,
    total_mappings: registry.manifest.counts.mappings,
    domains: 3,
    categories: 4,
    by_domain: { HIPAA: 3, CMMC: 1, GEN: 1 },
  });
  t.same(stats.by_severity, { critical: 2, high: 2, medium: 1, low: 0, info: 0 });
});

t.test('signal detail and list item', async (t) => {
  const signal = registry.signal(S_AUDIT)!;
  t.match(signal, {
    id: S_AUDIT,
    domain: 'HIPAA',
    category: 'AUDIT',
    severity: 'high',
    tags: ['logging', 'monitoring'],
    version: '1.0.0',
    effort: 'medium',
    created: '2026-01-10',
    updated: '2026-02-01',
    remediation_hint: 'Enable audit trails everywhere ePHI lives and review them on a schedule.',
    detection: {
      artifact_types: ['cloud.security.audit_trail', 'data.document.procedure'],
      conditions: ['Audit trail is disabled in an account holding ePHI'],
    },
  });
  t.notOk('mappings' in signal, 'mappings are served separately');
  t.same(Object.keys(registry.signalItem(S_AUDIT)!).sort(), ['category', 'description', 'domain', 'id', 'severity', 'status', 'tags', 'title', 'version']);
  t.equal(registry.signal('CSR-NOPE-001'), undefined);
});

t.test('signal id lists intersect precomputed filters', async (t) => {
  t.same(registry.signalIds(), [S_CMMC, S_GEN, S_AUDIT, S_CRYPTO, S_MFA]);
  t.same(registry.signalIds({ domain: 'HIPAA' }), [S_AUDIT, S_CRYPTO, S_MFA]);
  t.same(registry.signalIds({ domain: 'hipaa', severity: 'high' }), [S_AUDIT, S_MFA]);
  t.same(registry.signalIds({ severity: 'critical' }), [S_GEN, S_CRYPTO]);
  t.same(registry.signalIds({ category: 'ACCESS' }), [S_CMMC, S_GEN]);
  t.same(registry.signalIds({ tags: ['mfa'] }), [S_GEN, S_MFA]);
  t.same(registry.signalIds({ tags: ['mfa', 'identity'] }), [S_GEN]);
  t.same(registry.signalIds({ domain: 'CCPA' }), []);
  t.same(registry.signalIdsOfFramework('ISO-27001'), [S_CRYPTO]);
});

t.test('mappings: per signal, by filters, with stable ids', async (t) => {
  const ofSignal = registry.mappingsOfSignal(S_CRYPTO);
  t.same(
    ofSignal.map((m) => `${m.framework} ${m.control_id} ${m.relationship}`),
    ['HIPAA 164.312(a)(2)(iv) primary', 'ISO27001 A.8.24 partial', 'NISTCSF PR.DS-01 primary'],
  );
  t.match(ofSignal[0], {
    id: /^MAP-\d{5}$/,
    signal_id: S_CRYPTO,
    control_title: 'Encryption and Decryption',
    confidence: 0.95,
    rationale: /encryption of ePHI/,
    provenance: { kind: 'scanner_rule', source: 'prowler', rules: ['s3_bucket_default_encryption'] },
    derived: false,
  });
  t.same(
    registry.mappingsOfSignal(S_CRYPTO, 'nist-csf').map((m) => m.control_id),
    ['PR.DS-01'],
  );
  t.same(registry.mappingsOfSignal(S_CRYPTO, 'unknown'), []);

  const all = registry.mappings();
  t.equal(all.total, registry.manifest.counts.mappings);
  const ids = all.items.map((m) => m.id);
  t.same(ids, [...ids].sort(), 'ids follow list order');
  t.same(registry.mapping(ids[3]), all.items[3]);
  t.equal(registry.mapping('MAP-99999'), undefined);

  const page = registry.mappings({}, { offset: 2, limit: 3 });
  t.equal(page.total, all.total);
  t.same(page.items, all.items.slice(2, 5));

  const csf = registry.mappings({ framework: 'NIST-CSF', min_confidence: 0.7 });
  t.same(
    csf.items.map((m) => `${m.signal_id} ${m.control_id}`),
    [`${S_GEN} PR.AA-03`, `${S_CRYPTO} PR.DS-01`],
  );
  t.equal(registry.mappings({ framework: 'NISTCSF' }).total, 4, 'derived ones included below 0.7');

  const ac2 = registry.mappings({ control_id: 'AC-2' });
  t.same(
    ac2.items.map((m) => m.framework),
    ['FEDRAMP'],
    'control id across frameworks',
  );
  t.same(
    registry.mappings({ signal_id: S_AUDIT, framework: 'HIPAA', min_confidence: 0.7 }).items.map((m) => m.control_id),
    ['164.312(b)'],
  );
  t.same(registry.mappings({ framework: 'nope' }), { total: 0, items: [] });
});

t.test('domains', async (t) => {
  t.same(
    registry.domains().map((d) => [d.id, d.signal_count]),
    [
      ['HIPAA', 3],
      ['CMMC', 1],
      ['GEN', 1],
    ],
  );
  t.same(registry.domains()[0].categories, ['AUDIT', 'CRYPTO', 'IDENTITY']);
  const hipaa = registry.domain('hipaa')!;
  t.equal(hipaa.description, 'Fixture domain for HIPAA technical safeguards.');
  t.same(hipaa.stats, { by_category: { AUDIT: 1, CRYPTO: 1, IDENTITY: 1 }, by_severity: { critical: 1, high: 2, medium: 0, low: 0, info: 0 } });
  t.equal(registry.domain('SOC2'), undefined);
});

t.test('search', async (t) => {
  const hits = registry.search('encrypted storage');
  t.equal(hits[0].id, S_CRYPTO);
  t.equal(hits[0].score, 1);
  t.ok(hits.every((h) => h.score > 0 && h.score <= 1));
  t.same(
    registry.search('mfa', { domain: 'GEN' }).map((h) => h.id),
    [S_GEN],
  );
  t.ok(
    registry.search('privileged-access').some((h) => h.id === S_GEN),
    'tags are searched',
  );
  t.ok(
    registry.search(S_CMMC).some((h) => h.id === S_CMMC),
    'ids are searched',
  );
  t.same(registry.search('   '), []);
});

t.test("a worker's registry: small value cache, search index loaded on first search", async (t) => {
  const lean = Registry.open(outDir, { cacheEntries: 8, searchIndex: 'lazy' });
  t.teardown(() => lean.close());
  for (const id of lean.signalIds()) t.same(lean.signal(id), registry.signal(id), `${id} reads the same through a small cache`);
  t.same(lean.search('encrypted storage'), registry.search('encrypted storage'), 'the lazily loaded index answers like the eager one');
});

t.test('frameworks and controls', async (t) => {
  t.same(
    registry.frameworks().map((f) => f.code),
    ['HIPAA', 'CMMC', 'ISO27001', 'NISTCSF', 'FEDRAMP', 'NIST80053R5'],
  );
  t.same(
    registry.frameworks('government').map((f) => f.code),
    ['CMMC', 'FEDRAMP', 'NIST80053R5'],
  );
  t.match(registry.frameworks()[0], {
    code: 'HIPAA',
    listing_code: 'HIPAA',
    name: 'HIPAA Security Rule',
    version: '2013 Omnibus',
    category: 'healthcare',
    control_count: 4,
    gap_analysis: true,
    description: 'Test fixture catalog for HIPAA.',
  });
  for (const [input, code] of [
    ['nist-csf', 'NISTCSF'],
    ['NIST CSF', 'NISTCSF'],
    ['ISO-27001', 'ISO27001'],
    ['iso27001', 'ISO27001'],
    ['nist-800-53', 'NIST80053R5'],
    ['hipaa', 'HIPAA'],
  ]) {
    t.equal(registry.resolveFrameworkCode(input), code, input);
  }
  t.equal(registry.resolveFrameworkCode('PCI-DSS'), undefined, 'not in this fixture');
  t.same(registry.framework('nist-csf')!.control_categories, ['PROTECT', 'DETECT']);

  t.same(
    registry.controls('HIPAA').map((c) => c.id),
    ['164.308(a)(1)(ii)(D)', '164.312(a)(2)(iv)', '164.312(b)', '164.312(d)'],
    'catalog order',
  );
  t.same(
    registry.controls('hipaa', 'technical safeguards').map((c) => c.id),
    ['164.312(a)(2)(iv)', '164.312(b)', '164.312(d)'],
  );
  t.same(registry.controls('HIPAA', 'nope'), []);
  const listed = registry.controls('HIPAA')[3];
  t.match(listed, { id: '164.312(d)', title: 'Person or Entity Authentication', technical: true, signal_ids: [S_GEN, S_MFA] });
  t.match(listed.mapped_signals, [
    { signal_id: S_GEN, relationship: 'primary', confidence: 0.85, mapping_id: /^MAP-/ },
    { signal_id: S_MFA, relationship: 'primary', confidence: 0.8, mapping_id: /^MAP-/ },
  ]);
  t.equal(registry.mapping(listed.mapped_signals[1].mapping_id)!.signal_id, S_MFA);

  const control = registry.control('HIPAA', '164.312(d)')!;
  t.match(control, {
    framework: 'HIPAA',
    title: 'Person or Entity Authentication',
    level: 'required',
    description: /verified to be who they claim/,
    guidance: /multi-factor/,
    evidence: ['Authentication policy', 'MFA enrolment report'],
  });
  t.match(control.mapped_signals[0], {
    signal_id: S_GEN,
    title: 'Multi-factor authentication is not enforced for privileged access',
    severity: 'critical',
    rationale: /privileged/,
  });
  t.same(control.related_controls.map((r) => `${r.framework} ${r.control_id}`).sort(), ['CMMC IA.L2-3.5.3', 'NISTCSF PR.AA-03']);
  t.equal(registry.control('HIPAA', '164.312(a)(2)(iv)')!.guidance, '', 'no prose: empty guidance');
  t.equal(registry.control('HIPAA', 'nope'), undefined);
  t.same(registry.frameworksOfControlId('AC-2'), ['FEDRAMP', 'NIST80053R5']);
  t.same(registry.frameworksOfControlId('nope'), []);
});

t.test('artifact types', async (t) => {
  t.same(registry.artifactTypeIds(), [
    'cloud.security.audit_trail',
    'cloud.storage.object_bucket',
    'data.document.procedure',
    'identity.directory.user_account',
  ]);
  t.same(registry.artifactTypeIds({ category: 'cloud', provider: 'aws' }), ['cloud.security.audit_trail', 'cloud.storage.object_bucket']);
  t.same(registry.artifactTypeIds({ provider: 'gcp' }), ['cloud.storage.object_bucket']);
  t.same(registry.artifactTypeIds({ subcategory: 'directory' }), ['identity.directory.user_account']);
  t.same(registry.artifactTypeIds({ q: 'BUCKET' }), ['cloud.storage.object_bucket']);
  t.same(registry.artifactTypeIds({ category: 'cloud', q: 'written' }), []);
  const page = registry.artifactTypes({ category: 'cloud' }, { offset: 1, limit: 5 });
  t.equal(page.total, 2);
  t.match(page.items, [{ id: 'cloud.storage.object_bucket', ocsf: { object: 'databucket', profile: 'cloud' }, security_attributes: { can_be_public: true } }]);
  t.same(registry.resolveArtifactType('AWS', 'aws::s3::bucket'), {
    id: 'cloud.storage.object_bucket',
    name: 'Object storage bucket',
    category: 'cloud',
    subcategory: 'storage',
  });
  t.equal(registry.resolveArtifactType('aws', 'AWS::EC2::Instance'), undefined);
});

t.test('finding templates', async (t) => {
  t.same(registry.findingTemplateIds(), ['FT-GEN-ACCESS-MFA-ENFORCED-001-001', 'FT-HIPAA-AUDIT-LOG-REVIEW-001-001', 'FT-HIPAA-CRYPTO-DATA-AT-REST-002-001']);
  t.same(registry.findingTemplateIds({ status: 'draft' }), ['FT-HIPAA-CRYPTO-DATA-AT-REST-002-001']);
  t.same(registry.findingTemplateIds({ domain: 'HIPAA', severity: 'high' }), ['FT-HIPAA-AUDIT-LOG-REVIEW-001-001']);
  t.same(registry.findingTemplateIds({ category: 'access' }), ['FT-GEN-ACCESS-MFA-ENFORCED-001-001']);
  t.same(registry.findingTemplateIds({ q: 'cloudtrail' }), ['FT-HIPAA-AUDIT-LOG-REVIEW-001-001']);
  t.same(
    registry.templatesOfSignal(S_CRYPTO).map((x) => x.id),
    ['FT-HIPAA-CRYPTO-DATA-AT-REST-002-001'],
  );
  t.equal(registry.findingTemplates({ signal_id: S_MFA }).total, 0);
  const detail = registry.findingTemplateDetail('FT-HIPAA-CRYPTO-DATA-AT-REST-002-001')!;
  t.same(detail.signal, { id: S_CRYPTO, name: 'Storage holding ePHI is not encrypted at rest', domain: 'HIPAA', category: 'CRYPTO' });
  t.same(detail.tool_mappings, [
    { tool_id: 'checkov', tool_name: 'Checkov', rule_id: 'CKV_AWS_19', confidence: 'MEDIUM' },
    { tool_id: 'prowler', tool_name: 'Prowler', rule_id: 's3_bucket_default_encryption', confidence: 'HIGH' },
  ]);
  t.match(registry.findingTemplate('FT-HIPAA-CRYPTO-DATA-AT-REST-002-001'), { remediation: { steps: ['Enable SSE-KMS on the bucket'] } });
});

t.test('tools and tool mappings', async (t) => {
  t.same(
    registry.tools().map((x) => [x.id, x.mapping_count]),
    [
      ['checkov', 1],
      ['prowler', 3],
    ],
  );
  t.same(
    registry.tools({ category: 'iac' }).map((x) => x.id),
    ['checkov'],
  );
  t.same(
    registry.tools({ q: 'posture' }).map((x) => x.id),
    ['prowler'],
  );
  t.equal(registry.tool('prowler')!.license, 'Apache-2.0');
  const mappings = registry.toolMappings();
  t.equal(mappings.total, 4);
  t.match(mappings.items[0], {
    id: 'TM-00001',
    tool_id: 'checkov',
    tool_name: 'Checkov',
    finding_template_id: 'FT-HIPAA-CRYPTO-DATA-AT-REST-002-001',
    rule_id: 'CKV_AWS_19',
  });
  t.same(registry.toolMappingIds({ tool_id: 'prowler', confidence: 'high' }).length, 2);
  t.same(
    registry.toolMappings({ q: 'root account' }).items.map((m) => m.rule_id),
    ['iam_root_mfa_enabled'],
  );
  t.same(
    registry.toolMappings({ finding_template_id: 'FT-HIPAA-CRYPTO-DATA-AT-REST-002-001' }).items.map((m) => m.tool_id),
    ['checkov', 'prowler'],
  );
  t.same(registry.lookupToolRule('prowler', 'IAM_ROOT_MFA_ENABLED'), [
    {
      tool_id: 'prowler',
      tool_name: 'Prowler',
      rule_id: 'iam_root_mfa_enabled',
      confidence: 'MEDIUM',
      finding_template: {
        id: 'FT-GEN-ACCESS-MFA-ENFORCED-001-001',
        title: 'AWS: root account without MFA',
        description: 'The root user can sign in with a password only.',
        severity: 'critical',
        category: 'access',
        signal_id: S_GEN,
      },
    },
  ]);
  t.same(registry.lookupToolRule('prowler', 'nope'), []);
});

t.test('crosswalk overlaps, control crosswalks and signal coverage', async (t) => {
  const { overlaps, stats } = registry.crosswalkOverlaps();
  t.equal(overlaps.length, 10, 'pairs of the 5 gap frameworks present');
  t.match(stats, { frameworks_analyzed: 5 });
  t.same(registry.crosswalkOverlap('HIPAA', 'nist-csf'), {
    framework_a: 'HIPAA',
    framework_b: 'NISTCSF',
    shared_signals: 3,
    crosswalk_count: 4,
    overlap_percentage: 75,
  });
  t.same(registry.crosswalkOverlap('NISTCSF', 'HIPAA'), {
    framework_a: 'NISTCSF',
    framework_b: 'HIPAA',
    shared_signals: 3,
    crosswalk_count: 4,
    overlap_percentage: 75,
  });

  const cw = registry.controlCrosswalks('HIPAA', 'NISTCSF');
  t.equal(cw.total, 4);
  t.same(cw.summary, { total_crosswalks: 4, relationship_breakdown: { equivalent: 0, related: 0, partial: 4 } });
  t.same(
    registry.controlCrosswalks('HIPAA', 'NISTCSF', { control_id: '164.312(b)' }).items.map((c) => c.control_b.control_id),
    ['DE.CM-01', 'DE.CM-09'],
  );
  t.equal(registry.controlCrosswalks('HIPAA', 'NISTCSF', { min_strength: 0.55 }).total, 3);
  const reversed = registry.controlCrosswalks('nist-csf', 'hipaa', { control_id: 'PR.AA-03' });
  t.same(
    reversed.items.map((c) => [c.control_a.framework, c.control_b.control_id]),
    [['NISTCSF', '164.312(d)']],
  );
  t.same(
    registry.controlCrosswalks('NISTCSF', 'ISO27001', { relationship: 'equivalent' }).items.map((c) => c.control_b.control_id),
    ['A.8.24'],
  );
  t.equal(registry.controlCrosswalks('HIPAA', 'nope').total, 0);
  t.equal(registry.controlCrosswalks('HIPAA', 'NISTCSF', {}, { offset: 3, limit: 10 }).items.length, 1);

  t.same(registry.signalCoverage(S_GEN), {
    signal_id: S_GEN,
    frameworks: ['HIPAA', 'CMMC', 'NISTCSF'],
    framework_count: 3,
    controls_by_framework: { HIPAA: ['164.312(d)'], CMMC: ['IA.L2-3.5.3'], NISTCSF: ['PR.AA-03'] },
    is_multi_framework: true,
  });
  const list = registry.signalCoverages();
  t.same(
    list.items.map((c) => c.signal_id),
    [S_CMMC, S_GEN, S_AUDIT, S_CRYPTO],
  );
  t.same(list.summary, { total_multi_framework_signals: 4, by_framework_count: { '2_frameworks': 1, '3_frameworks': 3, '4_plus_frameworks': 0 } });
  t.same(
    registry.signalCoverages({ min_frameworks: 4 }).items.map((c) => c.signal_id),
    [],
    'NIST80053R5 (listing only) is not counted',
  );
  t.notOk(registry.signalCoverage(S_AUDIT)!.frameworks.includes('NIST80053R5'));
  t.same(
    registry.signalCoverages({ framework: 'CMMC', min_frameworks: 1 }).items.map((c) => c.signal_id),
    [S_CMMC, S_GEN],
  );
});
