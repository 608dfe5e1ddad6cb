import t from 'tap';
import { convertScan } from '../../src/ingest/import.js';
import { testRegistry } from '../helpers/findings.js';
import { fixture } from './helpers.js';

t.test('statuses: FAIL → open, PASS → resolved, muted → accepted, MANUAL → no finding, counted', async (t) => {
  const { result } = convertScan(testRegistry(), fixture('prowler.csv'), 'auto');
  t.same(
    result.findings.map((f) => [f.source.rule_id, f.status]),
    [
      ['s3_bucket_default_encryption', 'open'],
      ['iam_root_mfa_enabled', 'resolved'],
      ['cloudtrail_multi_region_enabled', 'accepted'],
    ],
  );
  t.match(result.summary, { results: 4, findings: 3, failed: 1, passed: 1, accepted: 1, other: 1, other_statuses: { MANUAL: 1 }, unmapped: 0 });
  const [finding] = result.findings;
  t.match(finding, {
    signal_id: 'CSR-GEN-CRYPTO-S3-BUCKET-DEFAULT-ENCRYPTION-4941',
    severity: { level: 'medium' },
    observed_at: '2026-11-20T08:15:00.000Z',
    artifact: { id: 'arn:aws:s3:::payroll-exports', provider: 'aws' },
  });
  t.same(finding.source, {
    tool: 'prowler',
    rule_id: 's3_bucket_default_encryption',
    rule_title: 'Check if S3 buckets have default encryption enabled',
    resource: 'arn:aws:s3:::payroll-exports',
    raw_status: 'FAIL',
  });
  t.match(finding.id, /^imp-[0-9a-f]{20}$/);
});

t.test('duplicates of one rule on one resource fold: the adverse status, the higher severity, the later time', async (t) => {
  const { result } = convertScan(testRegistry(), fixture('prowler-asff.json'), 'auto');
  const encryption = result.findings.filter((f) => f.source.rule_id === 'prowler-s3_bucket_default_encryption');
  t.equal(encryption.length, 1);
  t.equal(encryption[0].status, 'open', 'FAIL in one region outweighs PASS in another');
  t.equal(encryption[0].observed_at, '2026-11-20T09:15:00.000Z');
  t.equal(result.summary.duplicates, 1);
  const trivy = convertScan(testRegistry(), fixture('trivy-report.json'), 'auto').result;
  const logging = trivy.findings.filter((f) => f.source.rule_id === 'AWS-0089');
  t.equal(logging.length, 1);
  t.equal(logging[0].severity?.level, 'medium');
});

t.test('unmapped rules are listed with their counts; nothing is dropped silently', async (t) => {
  const { result } = convertScan(testRegistry(), fixture('checkov.json'), 'auto');
  t.same(result.unmapped, [{ tool: 'checkov', rule_id: 'CKV_AWS_999', title: 'A check the registry does not map', results: 1, failed: 1 }]);
  const s = result.summary;
  t.equal(s.failed + s.passed + s.accepted + s.other, s.results);
  t.equal(Object.values(s.resolved_by).reduce((a, b) => a + b, 0) + s.unmapped, s.results);
});

t.test('resolution routes: tool mapping, vulnerability id by kind and severity, CWE, tool category', async (t) => {
  const trivy = convertScan(testRegistry(), fixture('trivy-report.json'), 'auto').result;
  t.same(trivy.summary.resolved_by, { tool_mapping: 5, vulnerability_id: 2, cwe: 1 });
  const critical = trivy.findings.filter((f) => f.source.rule_id === 'CVE-2026-30003').map((f) => f.signal_id);
  t.same(
    critical.sort(),
    [
      'CSR-CIS-DEV-TRUSTED-COMPONENTS-130',
      'CSR-CIS-VULN-REMEDIATION-059',
      'CSR-CMMC-VULN-FLAWS-UNPATCHED-104',
      'CSR-FEDRAMP-VULN-FLAW-REMEDIATION-363',
      'CSR-GEN-VULN-VULN-FINDINGS-OPEN-094',
    ],
    'a critical library CVE: vulnerability management, a dependency, past deadline; not the threat-detection signal',
  );
  const sarif = convertScan(testRegistry(), fixture('code-scanning.sarif'), 'auto').result;
  t.same(sarif.summary.resolved_by, { cwe: 4, tool_category: 1 });
  t.same(
    sarif.unmapped.map((u) => u.rule_id),
    ['js/unused-variable'],
  );
  const hub = convertScan(testRegistry(), fixture('securityhub.asff.json'), 'auto').result;
  t.same(hub.unmapped, [], 'the CIS 1.2.0 RuleId 1.13 resolves through the same condition');
  t.ok(hub.findings.some((f) => f.source.rule_id === '1.13'));
});

t.test('a CVE never lands on the threat-detection signal; threat detections do', async (t) => {
  const THREAT = 'CSR-GEN-VULN-THREAT-FINDINGS-OPEN-089';
  for (const name of [
    'trivy-report.json',
    'grype.json',
    'snyk.json',
    'vulnerabilities.sarif',
    'trivy-operator.json',
    'scan.nessus',
    'gcp-scc.json',
    'securityhub.asff.json',
  ]) {
    const { result } = convertScan(testRegistry(), fixture(name), 'auto');
    const cves = result.findings.filter((f) => /^(CVE|GHSA|SNYK)-/.test(f.source.rule_id) || /^(187315|OS_VULNERABILITY)$/.test(f.source.rule_id));
    t.ok(cves.length > 0, `${name} has vulnerability findings`);
    t.notOk(
      cves.some((f) => f.signal_id === THREAT),
      `${name}: no vulnerability on ${THREAT}`,
    );
  }
  const guardduty = convertScan(testRegistry(), fixture('guardduty.json'), 'auto').result;
  t.same(
    guardduty.findings.map((f) => [f.source.rule_id, f.signal_id, f.status]),
    [
      ['Backdoor:EC2/C&CActivity.B!DNS', THREAT, 'open'],
      ['Discovery:IAMUser/AnomalousBehavior', THREAT, 'accepted'],
    ],
  );
  t.same(guardduty.summary.resolved_by, { threat_detection: 2 });
});

t.test('vulnerabilities by kind: OS packages reach OS patching, dependencies third-party components', async (t) => {
  const grype = convertScan(testRegistry(), fixture('grype.json'), 'auto').result;
  const signals = (rule: string) => grype.findings.filter((f) => f.source.rule_id === rule).map((f) => f.signal_id);
  t.ok(signals('CVE-2026-32010').includes('CSR-CIS-VULN-OS-PATCHING-055'));
  t.notOk(signals('CVE-2026-32010').includes('CSR-CIS-DEV-TRUSTED-COMPONENTS-130'));
  t.ok(signals('GHSA-c2qf-rxjj-qqgw').includes('CSR-CIS-DEV-TRUSTED-COMPONENTS-130'));
  t.ok(signals('GHSA-c2qf-rxjj-qqgw').includes('CSR-CIS-VULN-REMEDIATION-059'), 'high: remediation deadlines');
  t.notOk(signals('CVE-2026-32010').includes('CSR-CIS-VULN-REMEDIATION-059'), "medium by the distribution's rating");
  t.equal(grype.findings.find((f) => f.source.rule_id === 'CVE-2026-32010')?.severity?.level, 'medium');
});

t.test('same conditions under other ids and tools: Prowler 2, tfsec, Kubescape, Security Hub CIS 1.2.0', async (t) => {
  const v2 = convertScan(testRegistry(), fixture('prowler-v2.csv'), 'auto').result;
  t.same(v2.unmapped, []);
  t.same(v2.summary.resolved_by, { equivalent_rule: 4 });
  const tfsec = convertScan(testRegistry(), fixture('tfsec.json'), 'auto').result;
  t.same(tfsec.unmapped, [], "tfsec's rules are Trivy's");
  t.same(tfsec.findings.map((f) => f.status).sort(), ['accepted', 'open', 'open', 'resolved']);
  const kubescape = convertScan(testRegistry(), fixture('kubescape.json'), 'auto').result;
  t.same(
    kubescape.unmapped.map((u) => u.rule_id),
    ['C-0076'],
    'labels are not a security condition the registry holds',
  );
});

t.test("the tool's own claims: HDF tags.nist reach the FedRAMP signal of each control", async (t) => {
  const hdf = convertScan(testRegistry(), fixture('hdf.json'), 'auto').result;
  t.same(hdf.unmapped, []);
  const failed = hdf.findings.filter((f) => f.source.rule_id === 's3-buckets-no-public-access');
  t.ok(failed.length >= 1);
  t.ok(failed.every((f) => f.signal_id.startsWith('CSR-FEDRAMP-') && f.status === 'open'));
  t.ok(
    failed.some((f) => f.signal_id === 'CSR-FEDRAMP-ACCESS-LEAST-PRIVILEGE-018'),
    'AC-6 is least privilege',
  );
  t.ok(
    hdf.findings.some((f) => f.source.rule_id === 'iam-root-mfa' && f.status === 'resolved'),
    'IA-2(1), through its base control when the enhancement has no signal of its own',
  );
});

t.test('Defender for Cloud: an assessment id the registry does not list resolves by its policy name', async (t) => {
  const defender = convertScan(testRegistry(), fixture('defender.csv'), 'auto').result;
  t.same(defender.unmapped, []);
  t.ok(defender.summary.resolved_by.rule_name >= 1);
  t.same(defender.findings.map((f) => f.status).sort(), ['open', 'resolved']);
});
