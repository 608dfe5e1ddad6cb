import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allEquivalentRules } from '../../src/ingest/legacy-rules.js';
import { resolveToolRule, ruleIdCandidates } from '../../src/ingest/rule-resolution.js';
import { projectRoot } from '../../src/paths.js';
import { testRegistry } from '../helpers/findings.js';

t.test('spellings only scanner files produce', async (t) => {
  t.ok(ruleIdCandidates('prowler', 'prowler-s3_bucket_default_encryption').includes('s3_bucket_default_encryption'));
  t.ok(ruleIdCandidates('prowler', 'prowler-aws-s3_bucket_default_encryption').includes('s3_bucket_default_encryption'));
  t.ok(ruleIdCandidates('trivy', 'builtin.kubernetes.KSV001').includes('KSV001'), 'policy namespace');
  t.ok(ruleIdCandidates('trivy', 'data.builtin.aws.s3.aws0089.deny').includes('aws0089'), 'policy query');
  t.ok(ruleIdCandidates('kube-bench', '1.6.0/1.1.1').includes('1.6/1.1.1'), 'patch level dropped');
  t.same(ruleIdCandidates('checkov', 'CKV_AWS_20', ['BC_AWS_S3_1']), ['CKV_AWS_20', 'BC_AWS_S3_1'], 'the id as written, then the alternates');
});

t.test('resolution through the registry (its forms and aliases), every id form of the issue', async (t) => {
  const registry = testRegistry();
  const cases: Array<[string, string, string]> = [
    ['trivy', 'KSV001', 'KSV-0001'],
    ['trivy', 'KSV-0001', 'KSV-0001'],
    ['trivy', 'AVD-KSV-0001', 'KSV-0001'],
    ['trivy', 'builtin.kubernetes.KSV001', 'KSV-0001'],
    ['trivy', 'AVD-AWS-0086', 'AWS-0086'],
    ['trivy', 'AWS-0089', 'AWS-0089'],
    ['trivy', 'aws0089', 'AWS-0089'],
    ['prowler', 'prowler-iam_root_mfa_enabled', 'iam_root_mfa_enabled'],
    ['kube-bench', '1.6/1.1.1', 'cis-1.6/1.1.1'],
    ['kube-bench', 'cis-1.6/1.1.1', 'cis-1.6/1.1.1'],
    ['kube-bench', '1.6.0/1.1.1', 'cis-1.6/1.1.1'],
    ['aws-security-hub', 'aws-foundational-security-best-practices/v/1.0.0/EC2.2', 'EC2.2'],
    ['aws-security-hub', 'arn:aws:securityhub:eu-west-1:111122223333:control/aws-foundational-security-best-practices/v/1.0.0/EC2.2', 'EC2.2'],
    ['aws-security-hub', 'security-control/EC2.2', 'EC2.2'],
  ];
  for (const [tool, id, canonical] of cases) t.equal(resolveToolRule(registry, tool, id)?.rule_id, canonical, `${tool} ${id}`);
  t.equal(resolveToolRule(registry, 'kube-bench', '1.16/2.1', ['1.6/2.1'])?.rule_id, 'cis-1.6/2.1', 'a fallback version from the file');
  t.equal(resolveToolRule(registry, 'trivy', 'KSV-9999'), null);
});

t.test('same conditions under other ids and tools (legacy-rules.ts)', async (t) => {
  const registry = testRegistry();
  const cases: Array<[string, string, string[]]> = [
    // Security Hub CIS 1.2.0: the RuleId, the per-standard path, the ruleset ARN → Prowler's checks of the same recommendation.
    ['aws-security-hub', '1.13', ['prowler:iam_root_mfa_enabled']],
    ['aws-security-hub', 'cis-aws-foundations-benchmark/v/1.2.0/2.1', ['prowler:cloudtrail_multi_region_enabled']],
    [
      'aws-security-hub',
      'arn:aws:securityhub:::ruleset/cis-aws-foundations-benchmark/v/1.2.0/rule/1.3',
      ['prowler:iam_user_accesskey_unused', 'prowler:iam_user_console_access_unused'],
    ],
    ['prowler', 'check113', ['prowler:iam_root_mfa_enabled']],
    ['prowler', 'extra792', ['prowler:elb_insecure_ssl_ciphers', 'prowler:elbv2_insecure_ssl_ciphers']],
    // Split upstream: one old id, several successors.
    ['prowler', 'iam_disable_90_days_credentials', ['prowler:iam_user_accesskey_unused', 'prowler:iam_user_console_access_unused']],
    ['prowler', 'prowler-iam_disable_45_days_credentials', ['prowler:iam_user_accesskey_unused', 'prowler:iam_user_console_access_unused']],
    ['prowler', 'ec2_securitygroup_in_use_without_ingress_filtering', ['prowler:ec2_securitygroup_allow_ingress_from_internet_to_any_port']],
    ['kubescape', 'C-0016', ['trivy:KSV-0001']],
    ['kubescape', 'CIS-5.2.2', []],
  ];
  for (const [tool, id, successors] of cases) {
    const resolved = resolveToolRule(registry, tool, id);
    t.ok(resolved?.equivalent, `${tool} ${id} resolves through an equivalent`);
    if (successors.length) t.same(resolved?.rule_id.split(' '), successors, `${tool} ${id}`);
  }
  t.equal(
    resolveToolRule(registry, 'kubescape', 'CIS-5.2.2')?.rule_id.startsWith('kube-bench:'),
    true,
    'a Kubescape CIS control is a kube-bench recommendation',
  );
  t.equal(resolveToolRule(registry, 'tfsec', 'aws-s3-block-public-acls')?.rule_id, 'trivy:AWS-0086', "tfsec's long ids are Trivy's aliases");
  t.equal(
    resolveToolRule(registry, 'aws-security-hub', 'cis-aws-foundations-benchmark/v/1.4.0/1.13'),
    null,
    'CIS 1.4.0 numbers other recommendations: not read as 1.2.0',
  );
  t.equal(resolveToolRule(registry, 'kubescape', 'C-0076'), null);
});

t.test('every successor the tables name is a rule its tool publishes (registry/sources/rule-ids)', async (t) => {
  const published = new Map<string, Set<string>>();
  for (const ref of allEquivalentRules()) {
    if (!published.has(ref.tool)) {
      const lines = readFileSync(join(projectRoot, 'registry', 'sources', 'rule-ids', `${ref.tool}.txt`), 'utf8').split('\n');
      published.set(ref.tool, new Set(lines.filter((line) => line && !line.startsWith('#')).map((line) => line.trim().toLowerCase())));
    }
    const ids = published.get(ref.tool)!;
    const forms = ruleIdCandidates(ref.tool, ref.rule_id).map((id) => id.toLowerCase());
    t.ok(
      forms.some((id) => ids.has(id) || ids.has(id.replace(/^([a-z]+)(\d+)$/, (_, p: string, n: string) => `${p}-${n.padStart(4, '0')}`))),
      `${ref.tool} ${ref.rule_id}`,
    );
  }
});
