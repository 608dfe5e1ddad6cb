import t from 'tap';
import { resolveToolRule, ruleIdCandidates } from '../../src/ingest/rule-resolution.js';
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
