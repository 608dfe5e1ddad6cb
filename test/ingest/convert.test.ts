import t from 'tap';
import { convertScan } from '../../src/ingest/import.js';
import { testRegistry } from '../helpers/findings.js';
import { fixture } from './helpers.js';

t.test('statuses: FAIL → open, PASS → resolved, muted → accepted, MANUAL → no finding, counted', async (t) => {
  const { result } = convertScan(testRegistry(), fixture('prowler.csv'), 'auto');
  t.same(result.findings.map((f) => [f.source.rule_id, f.status]), [
    ['s3_bucket_default_encryption', 'open'],
    ['iam_root_mfa_enabled', 'resolved'],
    ['cloudtrail_multi_region_enabled', 'accepted'],
  ]);
  t.match(result.summary, { results: 4, findings: 3, failed: 1, passed: 1, accepted: 1, other: 1, other_statuses: { MANUAL: 1 }, unmapped: 0 });
  const [finding] = result.findings;
  t.match(finding, { signal_id: 'CSR-GEN-CRYPTO-S3-BUCKET-DEFAULT-ENCRYPTION-4941', severity: { level: 'medium' }, observed_at: '2026-11-20T08:15:00.000Z', artifact: { id: 'arn:aws:s3:::payroll-exports', provider: 'aws' } });
  t.same(finding.source, { tool: 'prowler', rule_id: 's3_bucket_default_encryption', rule_title: 'Check if S3 buckets have default encryption enabled', resource: 'arn:aws:s3:::payroll-exports', raw_status: 'FAIL' });
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

t.test('resolution routes: tool mapping, vulnerability id by severity, CWE, tool category', async (t) => {
  const trivy = convertScan(testRegistry(), fixture('trivy-report.json'), 'auto').result;
  t.same(trivy.summary.resolved_by, { tool_mapping: 5, vulnerability_id: 2, cwe: 1 });
  const critical = trivy.findings.filter((f) => f.source.rule_id === 'CVE-2026-30003').map((f) => f.signal_id);
  t.same(critical.sort(), ['CSR-GEN-VULN-THREAT-FINDINGS-OPEN-089', 'CSR-GEN-VULN-VULN-FINDINGS-OPEN-094']);
  const sarif = convertScan(testRegistry(), fixture('code-scanning.sarif'), 'auto').result;
  t.same(sarif.summary.resolved_by, { cwe: 4, tool_category: 1 });
  t.same(sarif.unmapped.map((u) => u.rule_id), ['js/unused-variable']);
  const hub = convertScan(testRegistry(), fixture('securityhub.asff.json'), 'auto').result;
  t.same(hub.unmapped.map((u) => u.rule_id), ['1.13'], 'legacy CIS ids wait for the registry alias table');
});
