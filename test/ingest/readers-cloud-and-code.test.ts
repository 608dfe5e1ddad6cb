import t from 'tap';
import { readScan } from '../../src/ingest/read.js';
import { fixture } from './helpers.js';

const read = (name: string) => readScan(fixture(name), 'auto');
const rows = (name: string) => read(name).results.map((r) => [r.rule_id, r.outcome, r.raw_status, r.severity]);

t.test('Prowler 2 CSV and JSON: the check id from the title, INFO without verdict, rows ending in a delimiter', async (t) => {
  t.equal(read('prowler-v2.csv').format, 'prowler-v2-csv');
  t.same(rows('prowler-v2.csv'), [
    ['check113', 'fail', 'FAIL', 'critical'],
    ['check21', 'pass', 'PASS', 'high'],
    ['extra73', 'fail', 'FAIL', 'high'],
    ['check11', 'other', 'INFO', 'high'],
  ]);
  t.equal(read('prowler-v2.csv').results[0].rule_title, 'Ensure MFA is enabled for the root account');
  const json = read('prowler-v2.ndjson');
  t.equal(json.format, 'prowler-v2-json');
  t.same(rows('prowler-v2.ndjson'), [
    ['check113', 'fail', 'Fail', 'critical'],
    ['check21', 'pass', 'Pass', 'high'],
  ]);
  t.equal(json.results[1].resource, 'payroll-trail');
});

t.test('Prowler 4 OCSF: status_code is the verdict; status_id 3 captioned "New" is not a muted finding', async (t) => {
  const scan = read('prowler4-ocsf.json');
  t.same([scan.format, scan.tool_version], ['prowler-ocsf', '4.2.4']);
  t.same(rows('prowler4-ocsf.json'), [
    ['iam_root_hardware_mfa_enabled', 'fail', 'FAIL', 'critical'],
    ['s3_bucket_default_encryption', 'accepted', 'FAIL (suppressed)', 'medium'],
  ]);
});

t.test('GuardDuty: the finding type is the rule, in native JSON and in ASFF; archived findings are accepted; threats', async (t) => {
  const native = read('guardduty.json');
  t.same([native.format, native.tool], ['guardduty', 'aws-guardduty']);
  t.same(rows('guardduty.json'), [
    ['Backdoor:EC2/C&CActivity.B!DNS', 'fail', 'ACTIVE', 'high'],
    ['Discovery:IAMUser/AnomalousBehavior', 'accepted', 'ARCHIVED', 'medium'],
  ]);
  t.same(
    native.results.map((r) => [r.resource, r.threat, r.severity_score]),
    [
      ['i-0a1b2c3d4e5f60718', true, 80],
      ['payroll-ci', true, 50],
    ],
  );
  const asff = read('guardduty.asff.json');
  t.same([asff.format, asff.tool], ['asff', 'aws-guardduty']);
  t.same(
    asff.results.map((r) => [r.rule_id, r.rule_alternates, r.threat]),
    [
      ['TTPs/Discovery/Recon:EC2-Portscan', ['Recon:EC2/Portscan'], true],
      ['TTPs/Initial Access/UnauthorizedAccess:EC2-SSHBruteForce', ['UnauthorizedAccess:EC2/SSHBruteForce'], true],
    ],
    'two threats stay two rules, not the one detector ARN',
  );
});

t.test('AWS Config evaluations: verdicts, resources, the managed rule behind a Security Hub rule name', async (t) => {
  const scan = read('aws-config.json');
  t.same(rows('aws-config.json'), [
    ['securityhub-s3-bucket-public-read-prohibited-a1b2c3', 'fail', 'NON_COMPLIANT', null],
    ['securityhub-s3-bucket-public-read-prohibited-a1b2c3', 'pass', 'COMPLIANT', null],
    ['restricted-ssh', 'other', 'NOT_APPLICABLE', null],
  ]);
  t.same(scan.results[0].rule_alternates, ['s3-bucket-public-read-prohibited']);
  t.same([scan.results[0].resource, scan.results[0].resource_type], ['payroll-exports', 'AWS::S3::Bucket']);
});

t.test('Security Command Center: category as rule, muted accepted, threats and vulnerabilities by finding class', async (t) => {
  const scan = read('gcp-scc.json');
  t.same([scan.format, scan.tool], ['gcp-scc', 'google-scc']);
  t.same(rows('gcp-scc.json'), [
    ['PUBLIC_BUCKET_ACL', 'fail', 'ACTIVE', 'high'],
    ['Persistence: IAM Anomalous Grant', 'fail', 'ACTIVE', 'high'],
    ['OS_VULNERABILITY', 'accepted', 'ACTIVE (muted)', 'critical'],
  ]);
  t.same(
    scan.results.map((r) => [r.threat, r.cve]),
    [
      [false, null],
      [true, null],
      [false, 'CVE-2026-33100'],
    ],
  );
});

t.test('Defender for Cloud recommendations CSV: states, CRLF lines, quoted fields with line breaks', async (t) => {
  const scan = read('defender.csv');
  t.same([scan.format, scan.tool], ['defender-csv', 'microsoft-defender-for-cloud']);
  t.same(rows('defender.csv'), [
    ['2a1a9cdf-e04d-429a-8416-3bfb72a1b26f', 'fail', 'Unhealthy', 'medium'],
    ['1c5de8e1-f68d-4a17-96be-4cdb2ae1ce5b', 'pass', 'Healthy', 'high'],
    ['d57a4221-a804-52ca-3dea-768284f06bb7', 'other', 'NotApplicable', 'medium'],
  ]);
  t.equal(scan.results[0].rule_title, 'Storage accounts should restrict network access');
});

t.test('Defender for Cloud regulatory compliance CSV: the resource state, resolved by name like the recommendations', async (t) => {
  const scan = read('defender-compliance.csv');
  t.equal(scan.format, 'defender-csv');
  t.same(rows('defender-compliance.csv'), [
    ['2a1a9cdf-e04d-429a-8416-3bfb72a1b26f', 'fail', 'Unhealthy', 'medium'],
    ['1c5de8e1-f68d-4a17-96be-4cdb2ae1ce5b', 'pass', 'Healthy', 'high'],
  ]);
});

t.test('GuardDuty as EventBridge delivers it: the finding under detail, camelCase fields', async (t) => {
  const event = {
    version: '0',
    id: 'c8c4daa7-a20c-2f03-0070-b7393dd542ad',
    'detail-type': 'GuardDuty Finding',
    source: 'aws.guardduty',
    account: '111122223333',
    time: '2026-11-20T05:01:12Z',
    region: 'eu-west-1',
    resources: [],
    detail: {
      schemaVersion: '2.0',
      accountId: '111122223333',
      region: 'eu-west-1',
      arn: 'arn:aws:guardduty:eu-west-1:111122223333:detector/12abc/finding/9f',
      type: 'CryptoCurrency:EC2/BitcoinTool.B!DNS',
      resource: { resourceType: 'Instance', instanceDetails: { instanceId: 'i-0a1b2c3d4e5f60718' } },
      service: { serviceName: 'guardduty', archived: false, eventLastSeen: '2026-11-20T05:00:00.000Z' },
      severity: 8,
      title: 'EC2 instance i-0a1b2c3d4e5f60718 is querying a domain name associated with Bitcoin-related activity.',
      updatedAt: '2026-11-20T05:01:00.000Z',
    },
  };
  const scan = readScan(Buffer.from(JSON.stringify(event)), 'auto');
  t.equal(scan.format, 'guardduty');
  t.same(
    scan.results.map((r) => [r.rule_id, r.resource, r.outcome, r.severity, r.observed_at]),
    [['CryptoCurrency:EC2/BitcoinTool.B!DNS', 'i-0a1b2c3d4e5f60718', 'fail', 'high', '2026-11-20T05:00:00.000Z']],
  );
});

t.test('InSpec / HDF: a result per control with Heimdall statuses, tags.nist as the tool’s 800-53 claims', async (t) => {
  const scan = read('hdf.json');
  t.same([scan.format, scan.tool, scan.tool_version], ['hdf', 'inspec', '5.22.36']);
  t.same(rows('hdf.json'), [
    ['s3-buckets-no-public-access', 'fail', 'Failed', 'high'],
    ['iam-root-mfa', 'pass', 'Passed', 'critical'],
    ['cloudtrail-log-file-validation', 'other', 'Not Applicable', 'info'],
  ]);
  t.same(
    scan.results.map((r) => r.nist_controls),
    [['AC-6'], ['IA-2(1)'], ['AU-9']],
    'Rev_4 is not a control',
  );
  t.equal(scan.results[0].resource, '111122223333');
});

t.test('ZAP JSON: a result per alert instance; informational and false-positive alerts carry no verdict; CWE ids', async (t) => {
  const scan = read('zap.json');
  t.same([scan.format, scan.tool_version], ['zap', '2.15.0']);
  t.same(rows('zap.json'), [
    ['40012', 'fail', 'High', 'high'],
    ['10096', 'other', 'Informational', 'info'],
    ['10202', 'other', 'False Positive', 'medium'],
  ]);
  t.same(scan.results[0].cwe, ['CWE-79']);
  t.equal(scan.results[0].resource, 'GET https://payroll.example.com/search?q=%3Cscript%3E (q)');
});

t.test('Semgrep JSON: CWE from metadata (a list or a string), nosemgrep accepted', async (t) => {
  const scan = read('semgrep.json');
  t.same([scan.format, scan.tool_version], ['semgrep', '1.85.0']);
  t.same(
    scan.results.map((r) => [r.outcome, r.severity, r.cwe]),
    [
      ['fail', 'high', ['CWE-89']],
      ['accepted', 'medium', ['CWE-89']],
      ['fail', 'info', []],
    ],
  );
  t.equal(scan.results[0].resource, 'payroll/views.py:41');
});
