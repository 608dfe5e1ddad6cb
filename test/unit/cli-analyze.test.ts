import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { finding, primarySignals } from '../helpers/findings.js';
import { SCORING_VERSION } from '../../src/gap/scoring.js';

const csr = join(projectRoot, 'bin', 'csr.js');

t.test('csr analyze: offline gap analysis from a file or standard input', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'csr-analyze-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [{ signal_id, control_id }] = primarySignals('HIPAA', 1);
  const file = join(dir, 'findings.json');
  writeFileSync(file, JSON.stringify([finding('f-1', signal_id)]));

  const run = spawnSync(process.execPath, [csr, 'analyze', file, '--frameworks', 'hipaa'], { encoding: 'utf8' });
  t.equal(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  t.match(result.data.id, /^GAP-/);
  t.equal(result.data.by_framework.HIPAA.gaps[0].control.id, control_id);
  t.equal(result.meta.scoring_version, SCORING_VERSION);

  const body = JSON.stringify({ frameworks: ['HIPAA', 'SOC2'], findings: [finding('f-1', signal_id)] });
  const piped = spawnSync(process.execPath, [csr, 'analyze', '-', '--tier', 'pro'], { input: body, encoding: 'utf8' });
  t.equal(piped.status, 1, 'tier limits apply: Pro analyses one framework');
  t.equal(JSON.parse(piped.stderr).error.code, 'GAP_TOO_MANY_FRAMEWORKS');

  const unknown = spawnSync(process.execPath, [csr, 'analyze', file, '--frameworks', 'SOX'], { encoding: 'utf8' });
  t.equal(unknown.status, 1);
  t.equal(JSON.parse(unknown.stderr).error.code, 'GAP_FRAMEWORK_NOT_FOUND');

  const variantA = spawnSync(process.execPath, [csr, 'analyze', file, '--frameworks', 'hipaa', '--variant', 'a'], { encoding: 'utf8' });
  t.equal(variantA.status, 0, variantA.stderr);
  const a = JSON.parse(variantA.stdout);
  t.same(
    Object.keys(a.data),
    ['analysis_id', 'created_at', 'status', 'frameworks_requested', 'options', 'scope', 'summary', 'frameworks', 'cross_framework_insights', 'coverage_plan'],
    '--variant a: Variant A alone',
  );
  t.equal(a.data.frameworks[0].gaps[0].control.id, control_id);
  const badVariant = spawnSync(process.execPath, [csr, 'analyze', file, '--variant', 'c'], { encoding: 'utf8' });
  t.equal(badVariant.status, 2, 'an unknown variant is a usage error');
  t.match(badVariant.stderr, /Unknown variant "c"; expected one of a, b/);

  const missing = spawnSync(process.execPath, [csr, 'analyze'], { encoding: 'utf8' });
  t.equal(missing.status, 2, 'usage error');
});

t.test('csr import and csr analyze read a scanner file offline', async (t) => {
  const scan = join(projectRoot, 'test', 'fixtures', 'scans', 'prowler.csv');
  const imported = spawnSync(process.execPath, [csr, 'import', scan], { encoding: 'utf8' });
  t.equal(imported.status, 0, imported.stderr);
  const findings = JSON.parse(imported.stdout);
  t.equal(findings.data.format, 'prowler-csv');
  t.equal(findings.data.findings.length, 3);

  const analysed = spawnSync(process.execPath, [csr, 'analyze', scan, '--frameworks', 'HIPAA,SOC2'], { encoding: 'utf8' });
  t.equal(analysed.status, 0, analysed.stderr);
  const result = JSON.parse(analysed.stdout);
  t.same(result.data.frameworks_requested, ['HIPAA', 'SOC2']);
  t.equal(result.meta.import.summary.results, 4);

  const noFrameworks = spawnSync(process.execPath, [csr, 'analyze', scan], { encoding: 'utf8' });
  t.equal(noFrameworks.status, 2, 'a scanner file needs --frameworks');
  const wrongFormat = spawnSync(process.execPath, [csr, 'import', scan, '--format', 'trivy'], { encoding: 'utf8' });
  t.equal(wrongFormat.status, 1);
  t.equal(JSON.parse(wrongFormat.stderr).error.code, 'scan_unreadable');
});
