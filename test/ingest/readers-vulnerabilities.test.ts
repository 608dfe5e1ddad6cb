import t from 'tap';
import { readScan } from '../../src/ingest/read.js';
import { fixture } from './helpers.js';

const read = (name: string) => readScan(fixture(name), 'auto');
const vulnerabilities = (name: string) =>
  read(name).results.map((r) => [r.rule_id, r.outcome, r.severity, r.severity_score, r.cve, r.vulnerability_kind ?? null]);

t.test("Grype: the tool's own severity before the highest CVSS, OS packages and dependencies told apart", async (t) => {
  const scan = read('grype.json');
  t.same([scan.format, scan.tool, scan.tool_version], ['grype', 'grype', '0.79.3']);
  t.same(vulnerabilities('grype.json'), [
    // Debian rates it Medium although NVD's CVSS is 7.5: Grype's rating (the distribution's) stands.
    ['CVE-2026-32010', 'fail', 'medium', 75, 'CVE-2026-32010', 'os-package'],
    ['GHSA-c2qf-rxjj-qqgw', 'fail', 'high', 53, 'GHSA-c2qf-rxjj-qqgw', 'dependency'],
  ]);
  t.same(scan.results[1].rule_alternates, ['CVE-2022-25883'], 'the related CVE');
  t.equal(scan.results[0].resource, 'registry.example.com/payroll/api:1.8.2 libssl3@3.0.11-1~deb12u2');
});

t.test('Snyk Open Source: the CVE names the advisory where there is one, a Snyk id otherwise; licence issues are not vulnerabilities', async (t) => {
  const scan = read('snyk.json');
  t.same([scan.format, scan.tool], ['snyk', 'snyk']);
  t.same(vulnerabilities('snyk.json'), [
    ['SNYK-JS-LODASH-1040724', 'fail', 'high', 72, 'CVE-2021-23337', 'dependency'],
    ['SNYK-JS-MINIMIST-2429795', 'fail', 'medium', 56, 'SNYK-JS-MINIMIST-2429795', 'dependency'],
    ['snyk:lic:npm:node-forge:GPL-2.0', 'fail', 'medium', null, null, null],
  ]);
  t.same(scan.results[0].cwe, ['CWE-78']);
});

t.test("Nessus XML: a result per item, Nessus's severity, CVEs as host vulnerabilities, CWE references, entities decoded", async (t) => {
  const scan = read('scan.nessus');
  t.same([scan.format, scan.tool], ['nessus', 'nessus']);
  t.same(vulnerabilities('scan.nessus'), [
    ['19506', 'other', 'info', null, null, null],
    ['187315', 'fail', 'medium', 59, 'CVE-2023-48795', 'host'],
    ['51192', 'fail', 'medium', 65, null, null],
  ]);
  t.same(
    scan.results.map((r) => r.resource),
    ['batch-1.payroll.internal', 'batch-1.payroll.internal:22/tcp', 'batch-1.payroll.internal:443/tcp'],
  );
  t.equal(scan.results[2].rule_title, 'SSL Certificate Cannot Be Trusted & Is Self-Signed');
  t.same(scan.results[2].cwe, ['CWE-295']);
  t.equal(scan.results[1].observed_at, '2026-11-20T06:58:12.000Z', 'HOST_END, read as UTC');
});

t.test('SARIF vulnerabilities: CVE ids in rule ids with a suffix and GHSA ids in tags; the severity tag before the level', async (t) => {
  t.same(vulnerabilities('vulnerabilities.sarif'), [
    ['CVE-2018-14618/curl', 'fail', 'critical', null, 'CVE-2018-14618', null],
    // level "error" would say high: the tool tags the rule MEDIUM.
    ['npm/semver/7.5.1', 'fail', 'medium', null, 'GHSA-c2qf-rxjj-qqgw', 'dependency'],
  ]);
});
