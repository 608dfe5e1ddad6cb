/**
 * Replays every real scanner file of ../shared/scans (SOURCES.md there) through
 * POST /v1/findings/import when that folder exists, and reports recognition per tool: distinct
 * failing rule ids of the mapped tools, vulnerability results, SARIF results with CWE tags.
 */
import t from 'tap';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { startTestService, call } from '../helpers/service.js';
import { convertScan } from '../../src/ingest/import.js';
import { readScan } from '../../src/ingest/read.js';
import { testRegistry } from '../helpers/findings.js';

const SCANS = process.env.SCANS_DIR ?? join(projectRoot, '..', 'shared', 'scans');
const MAPPED_TOOLS = new Set(['prowler', 'checkov', 'trivy', 'kube-bench', 'aws-security-hub', 'microsoft-defender-for-cloud']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.md') ? [] : [path];
  });
}

// Without the folder the suite is a counted skip, never a pass with nothing replayed.
const noScans = existsSync(SCANS) ? false : `SKIPPED: no real scanner files at ${SCANS} (place the scans there, or set SCANS_DIR to a folder of them)`;

t.test('every real scanner file imports over HTTP; failing rules of mapped tools are recognised', { skip: noScans }, async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('enterprise');
  const rules = new Map<string, { recognised: Set<string>; failing: Set<string> }>();
  const vulnerabilities = { mapped: 0, total: 0 };
  const sarifCwe = { mapped: 0, total: 0 };
  const sarifAll = { mapped: 0, total: 0 };
  for (const path of files(SCANS)) {
    const name = relative(SCANS, path);
    const res = await call(service, 'POST', '/v1/findings/import?format=auto', {
      key,
      rawBody: readFileSync(path),
      headers: { 'content-type': 'application/octet-stream' },
    });
    t.equal(res.status, 200, `${name}: ${res.text.slice(0, 200)}`);
    if (res.status !== 200) continue;
    const unmapped = new Set<string>(res.body.data.unmapped.map((u: { tool: string; rule_id: string }) => `${u.tool}\u0000${u.rule_id}`));
    // The normalised results say which failures are vulnerabilities or carry CWE ids.
    const read = readScan(readFileSync(path), 'auto');
    for (const result of read.results) {
      const key = `${result.tool}\u0000${result.rule_id}`;
      const recognised = !unmapped.has(key);
      if (result.cve) {
        vulnerabilities.total++;
        if (recognised) vulnerabilities.mapped++;
        continue;
      }
      if (read.format === 'sarif') {
        sarifAll.total++;
        if (recognised) sarifAll.mapped++;
      }
      if (read.format === 'sarif' && result.cwe.length) {
        sarifCwe.total++;
        if (recognised) sarifCwe.mapped++;
      }
      if (result.outcome !== 'fail' || !MAPPED_TOOLS.has(result.tool)) continue;
      let tool = rules.get(result.tool);
      if (!tool) rules.set(result.tool, (tool = { recognised: new Set(), failing: new Set() }));
      tool.failing.add(result.rule_id);
      if (recognised) tool.recognised.add(result.rule_id);
    }
  }
  let recognised = 0;
  let failing = 0;
  for (const [tool, counts] of [...rules].sort()) {
    recognised += counts.recognised.size;
    failing += counts.failing.size;
    const missing = [...counts.failing].filter((id) => !counts.recognised.has(id));
    t.comment(
      `${tool}: ${counts.recognised.size}/${counts.failing.size} distinct failing rule ids recognised${missing.length ? `; not in the registry: ${missing.join(', ')}` : ''}`,
    );
  }
  t.comment(`mapped tools: ${recognised}/${failing} = ${((100 * recognised) / Math.max(1, failing)).toFixed(1)} % of distinct failing rule ids`);
  t.comment(`vulnerability results mapped: ${vulnerabilities.mapped}/${vulnerabilities.total}`);
  t.comment(
    `SARIF results with CWE tags mapped: ${sarifCwe.mapped}/${sarifCwe.total}; all SARIF code and secret results: ${sarifAll.mapped}/${sarifAll.total}`,
  );
  t.ok(failing > 0, 'the files hold failing results of mapped tools');
  t.equal(vulnerabilities.mapped, vulnerabilities.total, 'every vulnerability result maps');
  // The targets: ≥ 95 % of distinct failing rule ids of the mapped tools, every
  // vulnerability result, ≥ 90 % of SARIF results with CWE tags.
  t.ok(recognised / failing >= 0.95, `at least 95 % of distinct failing rule ids recognised (${recognised}/${failing})`);
  t.ok(sarifCwe.total === 0 || sarifCwe.mapped / sarifCwe.total >= 0.9, 'SARIF results with CWE tags map');
  // The same conversion in-process agrees with the HTTP answer for one file.
  const sample = files(SCANS).find((path) => path.endsWith('.csv'));
  if (sample) t.ok(convertScan(testRegistry(), readFileSync(sample), 'auto').result.summary.results > 0);
});
