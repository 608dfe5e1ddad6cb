import t from 'tap';
import { resolveToolRule, ruleIdCandidates } from '../../src/ingest/rule-resolution.js';
import { testRegistry } from '../helpers/findings.js';

t.test('id forms that follow a rule', async (t) => {
  for (const id of ['KSV001', 'KSV-0001', 'AVD-KSV-0001', 'ksv-1', 'builtin.kubernetes.KSV001']) t.ok(ruleIdCandidates('trivy', id).includes('KSV-0001'), `trivy ${id}`);
  t.ok(ruleIdCandidates('trivy', 'AVD-AWS-0086').includes('AWS-0086'));
  t.ok(ruleIdCandidates('trivy', 'aws0089').includes('AWS-0089'), 'policy namespace form');
  t.ok(ruleIdCandidates('prowler', 'prowler-s3_bucket_default_encryption').includes('s3_bucket_default_encryption'));
  t.ok(ruleIdCandidates('prowler', 'prowler-aws-s3_bucket_default_encryption').includes('s3_bucket_default_encryption'));
  t.ok(ruleIdCandidates('kube-bench', '1.6/1.1.1').includes('cis-1.6/1.1.1'));
  t.ok(ruleIdCandidates('kube-bench', '1.6.0/1.1.1').includes('cis-1.6/1.1.1'), 'patch level dropped');
  t.ok(ruleIdCandidates('kube-bench', 'eks-1.2.0/3.1.1').includes('eks-1.2.0/3.1.1'), 'a prefixed benchmark is kept');
  for (const id of ['arn:aws:securityhub:eu-west-1:111122223333:control/aws-foundational-security-best-practices/v/1.0.0/EC2.2', 'aws-foundational-security-best-practices/v/1.0.0/EC2.2', 'security-control/EC2.2']) {
    t.ok(ruleIdCandidates('aws-security-hub', id).includes('EC2.2'), id);
  }
  t.ok(ruleIdCandidates('microsoft-defender-for-cloud', '/providers/Microsoft.Authorization/policyDefinitions/0015EA4D-51FF-4CE3-8D8C-F3F8F0179A56').includes('0015ea4d-51ff-4ce3-8d8c-f3f8f0179a56'));
  t.same(ruleIdCandidates('checkov', 'CKV_AWS_20'), ['CKV_AWS_20'], 'a tool without forms: the id as written');
});

t.test('resolution against the compiled registry, with the spelling that matched', async (t) => {
  const registry = testRegistry();
  t.equal(resolveToolRule(registry, 'trivy', 'KSV001')?.rule_id, 'KSV-0001');
  t.equal(resolveToolRule(registry, 'kube-bench', '1.6/1.1.1')?.rule_id, 'cis-1.6/1.1.1');
  t.equal(resolveToolRule(registry, 'kube-bench', '1.16/2.1', ['1.6/2.1'])?.rule_id, 'cis-1.6/2.1', 'a fallback version');
  t.equal(resolveToolRule(registry, 'aws-security-hub', 'aws-foundational-security-best-practices/v/1.0.0/EC2.2')?.rule_id, 'EC2.2');
  t.equal(resolveToolRule(registry, 'prowler', 'prowler-iam_root_mfa_enabled')?.rule_id, 'iam_root_mfa_enabled');
  t.equal(resolveToolRule(registry, 'trivy', 'KSV-9999'), null);
});
