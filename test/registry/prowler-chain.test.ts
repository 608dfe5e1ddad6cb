/**
 * Issue 11, "done when": a gap analysis of failing Prowler checks reaches the controls Prowler
 * itself names for those checks. Real compiled registry, real gap engine; Prowler's claims are read
 * from registry/facts (the same fact tables the generator reads).
 */
import t from 'tap';
import { analyze } from '../../src/gap/analyze.js';
import { Catalogs, readFacts } from '../../registry/generate/inputs.js';
import { readRules } from '../../registry/generate/rules.js';
import { defaultFactsDir, defaultSourcesDir } from '../../src/paths.js';
import { testRegistry } from '../helpers/findings.js';

const registry = testRegistry();
t.teardown(() => registry.close());

const FRAMEWORKS = ['HIPAA', 'ISO27001', 'PCIDSS', 'SOC2', 'NISTCSF', 'CIS', 'FEDRAMP', 'CMMC'];
const CHECKS = ['s3_bucket_default_encryption', 'cloudtrail_multi_region_enabled', 'iam_root_mfa_enabled', 'rds_instance_storage_encrypted', 'ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22'];

t.test('failing Prowler checks open gaps on every control Prowler maps them to', async (t) => {
  const rules = readRules(readFacts(defaultFactsDir), new Catalogs(defaultSourcesDir)).filter((r) => r.tool === 'prowler' && r.platform === 'aws' && CHECKS.includes(r.id));
  t.equal(rules.length, CHECKS.length, 'the sample checks are in the facts');
  const findings = CHECKS.map((check, i) => {
    const resolved = registry.resolveToolRule('prowler', check);
    t.ok(resolved, `${check} resolves`);
    return { id: `f${i}`, signal_id: resolved!.mappings[0].finding_template.signal_id, status: 'open', observed_at: '2026-11-20T10:00:00Z' };
  });
  const out = analyze(registry, { body: new TextEncoder().encode(JSON.stringify({ frameworks: FRAMEWORKS, findings })), tier: 'enterprise', id: 'prowler-chain', createdAt: '2026-11-23T00:00:00Z' });
  t.ok(out.ok, 'the analysis runs');
  if (!out.ok) return;
  const result = JSON.parse(new TextDecoder().decode(out.payload)) as { data: { by_framework: Record<string, { gaps: Array<{ control: { id: string } }> }> } };
  const gaps = new Set(Object.entries(result.data.by_framework).flatMap(([framework, f]) => f.gaps.map((g) => `${framework} ${g.control.id}`)));
  const claimed = new Set(rules.flatMap((r) => r.claims.filter((c) => FRAMEWORKS.includes(c.framework)).map((c) => `${c.framework} ${c.control}`)));
  t.ok(claimed.size > 30, `Prowler claims ${claimed.size} controls for the sample`);
  t.same([...claimed].filter((c) => !gaps.has(c)), [], 'every control Prowler claims is a gap of the analysis');
});
