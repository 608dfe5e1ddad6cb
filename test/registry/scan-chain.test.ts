/**
 * Failing scanner checks open gaps only in controls their conditions concern: every gap of an
 * analysis of failing Prowler checks is reached through a judged objective link of the check's
 * signal, and the pairs a copied tool map used to serve (each read against the control text and
 * found wrong) are gaps no more. Real compiled registry, real gap engine.
 */
import t from 'tap';
import { analyze } from '../../src/gap/analyze.js';
import { testRegistry } from '../helpers/findings.js';

const registry = testRegistry();
t.teardown(() => registry.close());

const FRAMEWORKS = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP'];

function gapsOf(checks: string[]): Map<string, Set<string>> {
  const findings = checks.map((check, i) => {
    const resolved = registry.resolveToolRule('prowler', check);
    if (!resolved) throw new Error(`${check} does not resolve`);
    return { id: `f${i}`, signal_id: resolved.mappings[0].finding_template.signal_id, status: 'open', observed_at: '2026-11-20T10:00:00Z' };
  });
  const out = analyze(registry, {
    body: new TextEncoder().encode(JSON.stringify({ frameworks: FRAMEWORKS, findings })),
    tier: 'enterprise',
    id: 'scan-chain',
    createdAt: '2026-11-23T00:00:00Z',
  });
  if (!out.ok) throw new Error('the analysis did not run');
  const result = JSON.parse(new TextDecoder().decode(out.payload)) as {
    data: { by_framework: Record<string, { gaps: Array<{ control: { id: string }; findings: Array<{ signal_id: string }> }> }> };
  };
  const bySignal = new Map<string, Set<string>>();
  for (const [framework, f] of Object.entries(result.data.by_framework)) {
    for (const gap of f.gaps)
      for (const finding of gap.findings)
        (bySignal.get(finding.signal_id) ?? bySignal.set(finding.signal_id, new Set()).get(finding.signal_id)!).add(`${framework} ${gap.control.id}`);
  }
  return bySignal;
}

t.test('every gap comes through a judged objective link of the failing signal', async (t) => {
  const checks = [
    's3_bucket_default_encryption',
    'cloudtrail_multi_region_enabled',
    'iam_root_mfa_enabled',
    'rds_instance_storage_encrypted',
    'ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22',
  ];
  const gaps = gapsOf(checks);
  t.equal(gaps.size, checks.length, 'each failing check opens gaps');
  for (const [signal, controls] of gaps) {
    const judged = new Set(
      registry
        .mappingsOfSignal(signal)
        .filter(
          (m) =>
            m.confidence >= 0.7 &&
            m.provenance.kind === 'objective' &&
            (m.provenance.set_relationship === 'equal' || m.provenance.set_relationship === 'subset_of'),
        )
        .map((m) => `${m.framework} ${m.control_id}`),
    );
    t.same(
      [...controls].filter((c) => !judged.has(c)),
      [],
      `${signal}: no gap outside its judged links`,
    );
    t.ok(new Set([...controls].map((c) => c.split(' ')[0])).size >= 5, `${signal}: reaches several frameworks`);
  }
});

t.test('pairs a copied tool map served, read against the control text and found wrong, open no gap', async (t) => {
  const wrong: Array<[string, string]> = [
    ['ec2_instance_imdsv2_enabled', 'ISO27001 A.8.22'],
    ['rds_instance_storage_encrypted', 'HIPAA 164.312(e)(2)(ii)'],
    ['s3_bucket_default_encryption', 'HIPAA 164.312(e)(2)(ii)'],
    ['eks_control_plane_logging_all_types_enabled', 'PCIDSS 5.3'],
    ['eks_control_plane_logging_all_types_enabled', 'PCIDSS 10.6'],
    ['iam_password_policy_expires_passwords_within_90_days_or_less', 'CMMC IA.L2-3.5.5'],
    ['storage_secure_transfer_required_is_enabled', 'GDPR Art. 33'],
    ['rds_instance_deletion_protection', 'HIPAA 164.308(a)(7)(ii)(C)'],
  ];
  const gaps = gapsOf([...new Set(wrong.map(([check]) => check))]);
  const signalOf = (check: string) => registry.resolveToolRule('prowler', check)!.mappings[0].finding_template.signal_id;
  for (const [check, control] of wrong) t.notOk(gaps.get(signalOf(check))?.has(control), `${check} opens no gap in ${control}`);
  const all = new Set([...gaps.values()].flatMap((s) => [...s]));
  t.ok(all.size > 20, `the checks still open ${all.size} gaps where their conditions apply`);
});
