import t from 'tap';
import { readScan } from '../../src/ingest/read.js';
import { fixture } from './helpers.js';

const brief = (name: string, format: Parameters<typeof readScan>[1] = 'auto') => {
  const read = readScan(fixture(name), format);
  return { read, rows: read.results.map((r) => [r.tool, r.rule_id, r.outcome, r.raw_status, r.severity]) };
};

t.test('Prowler OCSF: check id from event_code, statuses, suppressed failure, time without zone read as UTC', async (t) => {
  const { read, rows } = brief('prowler-ocsf.json');
  t.equal(read.format, 'prowler-ocsf');
  t.same([read.tool, read.tool_version], ['prowler', '5.2.0']);
  t.same(rows, [
    ['prowler', 's3_bucket_default_encryption', 'fail', 'FAIL', 'medium'],
    ['prowler', 'iam_root_mfa_enabled', 'pass', 'PASS', 'critical'],
    ['prowler', 'account_maintain_current_contact_details', 'other', 'MANUAL', 'medium'],
    ['prowler', 'cloudtrail_multi_region_enabled', 'accepted', 'FAIL (suppressed)', 'high'],
  ]);
  t.equal(read.results[0].observed_at, '2026-11-20T08:15:00.123Z', 'a time stamp without zone is UTC');
  t.equal(read.results[1].observed_at, '2026-11-20T08:00:00.000Z', 'epoch seconds');
  t.equal(read.results[0].resource, 'arn:aws:s3:::payroll-exports');
});

t.test('Prowler ASFF: GeneratorId with the prowler- prefix, one result per resource', async (t) => {
  const { read, rows } = brief('prowler-asff.json');
  t.equal(read.format, 'prowler-asff');
  t.equal(read.tool_version, '3.11.0');
  t.same(
    rows.map((r) => r.slice(1, 3)),
    [
      ['prowler-s3_bucket_default_encryption', 'fail'],
      ['prowler-s3_bucket_default_encryption', 'pass'],
      ['prowler-iam_root_mfa_enabled', 'pass'],
    ],
  );
});

t.test('Prowler CSV: semicolons, quoted fields with quotes and line breaks, MUTED column', async (t) => {
  const { read, rows } = brief('prowler.csv');
  t.equal(read.format, 'prowler-csv');
  t.equal(read.tool_version, '4.6.0');
  t.same(
    rows.map((r) => r.slice(1, 4)),
    [
      ['s3_bucket_default_encryption', 'fail', 'FAIL'],
      ['iam_root_mfa_enabled', 'pass', 'PASS'],
      ['cloudtrail_multi_region_enabled', 'accepted', 'FAIL (muted)'],
      ['account_maintain_current_contact_details', 'other', 'MANUAL'],
    ],
  );
  t.equal(read.results[0].observed_at, '2026-11-20T08:15:00.000Z');
});

t.test('Prowler native JSON (v3)', async (t) => {
  const { read, rows } = brief('prowler-native.json');
  t.equal(read.format, 'prowler-native');
  t.same(
    rows.map((r) => r.slice(1, 3)),
    [
      ['s3_bucket_default_encryption', 'fail'],
      ['iam_root_mfa_enabled', 'pass'],
    ],
  );
  t.equal(read.results[1].resource, '111122223333', 'an empty ARN falls back to the resource id');
});

t.test('Security Hub ASFF: consolidated, per-standard and legacy ids, suppressed, Inspector vulnerabilities', async (t) => {
  const { read, rows } = brief('securityhub.asff.json');
  t.equal(read.format, 'asff');
  t.same(rows, [
    ['aws-security-hub', 'EC2.2', 'fail', 'FAILED', 'high'],
    ['aws-security-hub', 'EC2.2', 'fail', 'FAILED', 'high'],
    ['aws-security-hub', 'aws-foundational-security-best-practices/v/1.0.0/S3.1', 'pass', 'PASSED', 'info'],
    ['aws-security-hub', '1.13', 'fail', 'FAILED', 'critical'],
    ['aws-security-hub', 'IAM.6', 'accepted', 'FAILED (suppressed)', 'critical'],
    ['aws-inspector', 'CVE-2026-10001', 'fail', 'NEW', 'high'],
  ]);
  t.same(
    read.results.slice(0, 2).map((r) => r.resource),
    ['arn:aws:ec2:eu-west-1:111122223333:security-group/sg-01', 'arn:aws:ec2:eu-west-1:111122223333:security-group/sg-02'],
  );
  t.equal(read.results[5].cve, 'CVE-2026-10001');
  t.equal(read.results[0].severity_score, 70);
});

t.test('OCSF, newline-delimited: compliance (2003), vulnerability (2002), detection (2004) findings', async (t) => {
  const { read, rows } = brief('ocsf-mixed.ndjson');
  t.equal(read.format, 'ocsf');
  t.same(rows, [
    ['aws-security-hub', 'EC2.2', 'fail', 'Fail', 'high'],
    ['aws-security-hub', 'S3.1', 'pass', 'Pass', 'info'],
    ['grype', 'CVE-2026-20002', 'fail', 'New', 'critical'],
    ['grype', 'GHSA-2jcg-qqmg-46q6', 'fail', 'New', 'low'],
    ['trivy', 'KSV-0012', 'pass', 'Resolved', 'medium'],
  ]);
  t.equal(read.results[0].observed_at, '2026-11-20T08:00:00.000Z', 'epoch milliseconds');
});

t.test('SARIF: rule by id, index or reference; CWE from tags, taxonomy relationships and titles; suppressions; pass; rule-less results', async (t) => {
  const { read } = brief('code-scanning.sarif');
  t.equal(read.format, 'sarif');
  t.same([read.tool, read.tool_version], ['codeql', '2.19.0']);
  t.same(
    read.results.map((r) => [r.tool, r.rule_id, r.outcome, r.severity, r.cwe]),
    [
      ['codeql', 'js/sql-injection', 'fail', 'high', ['CWE-89']],
      ['codeql', 'js/reflected-xss', 'fail', 'high', ['CWE-79']],
      ['codeql', 'js/hardcoded-credentials', 'accepted', 'medium', ['CWE-798']],
      ['codeql', 'js/unused-variable', 'fail', 'low', []],
      ['codeql', 'js/sql-injection', 'pass', 'high', ['CWE-89']],
      ['gitleaks', 'aws-access-token', 'fail', 'medium', []],
    ],
  );
  t.equal(read.results[0].severity_score, 88, 'security-severity 8.8 → 88 of 100');
  t.equal(read.results[0].resource, 'src/orders.js:41');
  t.equal(read.results[0].observed_at, '2026-11-20T07:00:00.000Z');
});

t.test('Checkov: a list of reports, passed/failed/skipped, an empty report', async (t) => {
  const { read, rows } = brief('checkov.json');
  t.equal(read.format, 'checkov');
  t.equal(read.tool_version, '3.2.300');
  t.same(
    rows.map((r) => r.slice(1, 4)),
    [
      ['CKV_AWS_20', 'fail', 'FAILED'],
      ['CKV_AWS_999', 'fail', 'FAILED'],
      ['CKV_AWS_19', 'pass', 'PASSED'],
      ['CKV_AWS_41', 'other', 'SKIPPED'],
      ['CKV_DOCKER_2', 'fail', 'FAILED'],
    ],
  );
  t.equal(read.results[0].resource, '/s3.tf:aws_s3_bucket.payroll');
});

t.test('Trivy report: every misconfiguration id form, vulnerabilities, secrets', async (t) => {
  const { read } = brief('trivy-report.json');
  t.equal(read.format, 'trivy');
  t.equal(read.tool_version, '0.57.0');
  t.same(
    read.results.map((r) => [r.rule_id, r.outcome, r.severity, r.cve, r.cwe]),
    [
      ['KSV012', 'fail', 'medium', null, []],
      ['KSV-0001', 'pass', 'medium', null, []],
      ['AVD-AWS-0086', 'fail', 'high', null, []],
      ['AWS-0089', 'fail', 'low', null, []],
      ['AWS-0089', 'fail', 'medium', null, []],
      ['CVE-2026-30003', 'fail', 'critical', 'CVE-2026-30003', ['CWE-787']],
      ['GHSA-9wv6-86v2-598j', 'fail', null, 'GHSA-9wv6-86v2-598j', []],
      ['aws-access-key-id', 'fail', 'critical', null, ['CWE-798']],
    ],
  );
  t.same(read.results[0].rule_alternates, ['AVD-KSV-0012']);
});

t.test('Trivy Kubernetes Resources[] layout: workload names, advisory ids that are not CVEs', async (t) => {
  const { read } = brief('trivy-k8s.json');
  t.same(
    read.results.map((r) => [r.rule_id, r.resource, r.cve]),
    [
      ['KSV001', 'default/Deployment/web Deployment/web', null],
      ['TEMP-0841856-B18BAF', 'default/Deployment/web registry.example/web:1.4.2 (debian 12.5) libtiny@1.2', 'TEMP-0841856-B18BAF'],
    ],
  );
});

t.test('kube-bench: object and array layouts, the benchmark version in the rule id, other versions as fallbacks', async (t) => {
  const object = brief('kube-bench.json');
  t.equal(object.read.format, 'kube-bench');
  t.same(
    object.rows.map((r) => r.slice(1, 4)),
    [
      ['1.6/1.1.1', 'fail', 'FAIL'],
      ['1.6/1.1.2', 'pass', 'PASS'],
      ['1.16/2.1', 'other', 'WARN'],
    ],
  );
  t.same(object.read.results[2].rule_alternates, ['1.6/2.1']);
  const array = brief('kube-bench-array.json');
  t.same(
    array.rows.map((r) => r.slice(1, 3)),
    [['cis-1.20/4.2.1', 'fail']],
  );
});

t.test('a named format reads a file that auto would also detect, and says it considered only that one', async (t) => {
  const read = readScan(fixture('trivy-report.json'), 'trivy');
  t.same(read.considered, ['trivy']);
  const auto = readScan(fixture('trivy-report.json'), 'auto');
  t.ok(auto.considered.length > 1 && auto.considered.at(-1) === 'trivy', 'auto lists what it looked at, ending with the match');
});
