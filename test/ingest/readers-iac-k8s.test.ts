import t from 'tap';
import { readScan } from '../../src/ingest/read.js';
import { fixture } from './helpers.js';

const read = (name: string) => readScan(fixture(name), 'auto');
const rows = (name: string) => read(name).results.map((r) => [r.rule_id, r.outcome, r.raw_status, r.severity]);

t.test('tfsec: 1.x AVD ids with numeric statuses, 0.x long ids, long and legacy ids as alternates', async (t) => {
  const scan = read('tfsec.json');
  t.same([scan.format, scan.tool], ['tfsec', 'tfsec']);
  t.same(rows('tfsec.json'), [
    ['AVD-AWS-0086', 'fail', 'failed', 'high'],
    ['aws-vpc-no-public-egress-sgr', 'fail', 'failed', 'critical'],
    ['AVD-AWS-0088', 'pass', 'passed', 'high'],
    ['AVD-AWS-0089', 'accepted', 'ignored', 'medium'],
  ]);
  t.same(scan.results[0].rule_alternates, ['aws-s3-block-public-acls']);
  t.same(scan.results[1].rule_alternates, ['AWS007']);
  t.equal(scan.results[0].resource, '/src/infra/s3.tf:4 aws_s3_bucket.payroll');
});

t.test('KICS: one result per query and place; the CWE KICS gives; secret queries are hard-coded secrets', async (t) => {
  const scan = read('kics.json');
  t.same([scan.format, scan.tool_version], ['kics', 'v1.7.13']);
  t.same(rows('kics.json'), [
    ['487f4be7-3fd9-4506-a07a-eae252180c08', 'fail', 'RedundantAttribute', 'high'],
    ['568a4d22-3517-44a6-a7ad-6a7eed88722c', 'fail', 'MissingAttribute', 'medium'],
  ]);
  t.same(
    scan.results.map((r) => r.cwe),
    [['CWE-798'], []],
  );
  t.equal(scan.results[0].resource_type, 'aws_db_instance');
});

t.test('Kubescape: control statuses (on the control, or from its rules), score factor as severity, workload names', async (t) => {
  const scan = read('kubescape.json');
  t.same([scan.format, scan.tool_version], ['kubescape', 'v3.0.19']);
  t.same(rows('kubescape.json'), [
    ['C-0016', 'fail', 'failed', 'medium'],
    ['C-0017', 'pass', 'passed', 'low'],
    ['CIS-5.2.2', 'fail', 'failed', 'high'],
    ['C-0076', 'fail', 'failed', 'low'],
  ]);
  t.equal(scan.results[0].resource, 'payroll/Deployment/api');
});

t.test('trivy-operator: a kubectl List of config audit, vulnerability and secret reports', async (t) => {
  const scan = read('trivy-operator.json');
  t.same([scan.format, scan.tool, scan.tool_version], ['trivy-operator', 'trivy', '0.52.2']);
  t.same(
    scan.results.map((r) => [r.rule_id, r.outcome, r.severity, r.cve, r.vulnerability_kind ?? null]),
    [
      ['KSV012', 'fail', 'medium', null, null],
      ['KSV001', 'pass', 'medium', null, null],
      ['CVE-2026-31001', 'fail', 'critical', 'CVE-2026-31001', 'os-package'],
      ['GHSA-78xj-cgh5-2h22', 'fail', 'medium', 'GHSA-78xj-cgh5-2h22', 'dependency'],
      ['aws-secret-access-key', 'fail', 'critical', null, null],
    ],
  );
  t.equal(scan.results[0].resource, 'payroll/ReplicaSet/api-7d4b9c');
  t.equal(scan.results[2].resource, 'payroll/ReplicaSet/api-7d4b9c registry.example.com/payroll/api:1.8.2 libexpat@2.5.0-r2');
  t.same(scan.results[4].cwe, ['CWE-798']);
});

t.test('trivy-operator ClusterComplianceReport summary: a result per control, its checks as the rule, manual controls without verdict', async (t) => {
  const scan = read('trivy-operator-compliance.json');
  t.same(rows('trivy-operator-compliance.json'), [
    ['AVD-KCV-0001', 'pass', 'totalFail 0', 'medium'],
    ['AVD-KCV-0088', 'fail', 'totalFail 3', 'critical'],
    ['5.1.1', 'other', 'MANUAL', 'high'],
  ]);
  t.same(scan.results[1].rule_alternates, ['AVD-KCV-0089']);
  t.equal(scan.results[1].resource, 'k8s-cis-1.23 4.2.10');
  t.equal(scan.results[0].observed_at, '2026-11-20T06:00:00.000Z', 'the status update time');
});

t.test('Snyk IaC: issues, an ignored one accepted', async (t) => {
  const scan = read('snyk-iac.json');
  t.same([scan.format, scan.tool], ['snyk-iac', 'snyk']);
  t.same(rows('snyk-iac.json'), [
    ['SNYK-CC-TF-124', 'fail', 'FAIL', 'medium'],
    ['SNYK-CC-TF-45', 'accepted', 'FAIL (ignored)', 'low'],
  ]);
  t.equal(scan.results[0].resource, '/src/infra/s3.tf:4 resource.aws_s3_bucket[payroll].versioning.enabled');
});

t.test('trivy-operator ClusterComplianceReport with a detail report: one result per check', async (t) => {
  const report = {
    apiVersion: 'aquasecurity.github.io/v1alpha1',
    kind: 'ClusterComplianceReport',
    metadata: { name: 'k8s-nsa' },
    spec: { reportType: 'all', compliance: { id: 'k8s-nsa', title: 'National Security Agency - Kubernetes Hardening Guidance v1.0', controls: [] } },
    status: {
      detailReport: {
        id: 'k8s-nsa',
        results: [
          {
            id: '1.0',
            name: 'Non-root containers',
            severity: 'MEDIUM',
            checks: [
              { checkID: 'AVD-KSV-0012', title: 'Runs as root user', severity: 'MEDIUM', success: false, target: 'payroll/Deployment/api' },
              { checkID: 'AVD-KSV-0012', title: 'Runs as root user', severity: 'MEDIUM', success: true, target: 'payroll/Deployment/batch' },
            ],
          },
        ],
      },
      updateTimestamp: '2026-11-20T06:00:00Z',
    },
  };
  const scan = readScan(Buffer.from(JSON.stringify(report)), 'auto');
  t.same(
    scan.results.map((r) => [r.rule_id, r.outcome, r.resource]),
    [
      ['AVD-KSV-0012', 'fail', 'k8s-nsa 1.0 payroll/Deployment/api'],
      ['AVD-KSV-0012', 'pass', 'k8s-nsa 1.0 payroll/Deployment/batch'],
    ],
  );
});

t.test('Kubescape: a failure excepted by the user passes with sub-status w/exceptions: accepted', async (t) => {
  const doc = JSON.parse(fixture('kubescape.json').toString('utf8'));
  doc.results[0].controls[0].status = { status: 'passed', subStatus: 'w/exceptions' };
  doc.results[0].controls[1].status = { status: 'passed', subStatus: 'irrelevant' };
  const scan = readScan(Buffer.from(JSON.stringify(doc)), 'kubescape');
  t.same(
    scan.results.slice(0, 2).map((r) => [r.rule_id, r.outcome, r.raw_status]),
    [
      ['C-0016', 'accepted', 'passed (w/exceptions)'],
      ['C-0017', 'other', 'passed (irrelevant)'],
    ],
  );
});
