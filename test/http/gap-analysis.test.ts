import t from 'tap';
import { connect } from 'node:net';
import { startTestService, call, type TestService } from '../helpers/service.js';
import { finding, primarySignals, testRegistry } from '../helpers/findings.js';

const ALL = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA'];

async function create(service: TestService, key: string, body: unknown) {
  return call(service, 'POST', '/v1/gap-analysis', { key, body });
}

t.test('create and get: both variants, hand-checked statuses', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('pro');
  const [failing, accepted, passing] = primarySignals('HIPAA', 3);
  const res = await create(service, key, {
    frameworks: ['hipaa'],
    findings: [
      finding('f-1', failing.signal_id, 'open', { severity: { level: 'critical' } }),
      finding('f-2', accepted.signal_id, 'accepted'),
      finding('f-3', passing.signal_id, 'false_positive'),
      finding('f-4', passing.signal_id, 'resolved'),
    ],
  });
  t.equal(res.status, 200, res.text.slice(0, 300));
  const { data, meta } = res.body;
  t.match(data.id, /^GAP-\d{4}-\d{2}-\d{2}-[0-9A-Z]{10}$/);
  t.equal(data.analysis_id, data.id, 'Variant A and B ids agree');
  t.same(Object.keys(data.by_framework), ['HIPAA'], 'codes answered in canonical spelling');
  t.same(meta.version, '1.1.0');
  t.equal(meta.scoring_version, '1.0.0');
  t.equal(meta.registry_version, testRegistry().manifest.registry_version);
  t.type(meta.processing_time_ms, 'number');

  const hipaa = data.by_framework.HIPAA;
  const gap = (control: string) => hipaa.gaps.find((g: { control: { id: string } }) => g.control.id === control);
  t.equal(gap(failing.control_id)?.status, 'non_compliant');
  t.equal(gap(failing.control_id)?.severity, 'critical', "the finding's severity wins");
  t.equal(gap(accepted.control_id)?.status, 'partially_compliant');
  const compliant = hipaa.compliant.find((c: { control: { id: string } }) => c.control.id === passing.control_id);
  t.equal(compliant?.status, 'compliant');
  t.same(compliant?.validated_by.map((v: { finding_id: string }) => v.finding_id), ['f-3'], 'resolved f-4 is excluded by default');
  const counts = hipaa.posture;
  t.equal(counts.controls_total, 54);
  t.equal(counts.controls_compliant + counts.controls_partial + counts.controls_non_compliant + counts.controls_not_assessed, 54);
  t.equal(data.summary.findings.excluded_resolved, 1);
  t.equal(data.summary.critical_gaps >= 1, true);
  t.equal(data.frameworks[0].code, 'HIPAA');
  const variantA = data.frameworks[0].gaps.find((g: { control: { id: string } }) => g.control.id === failing.control_id);
  t.type(variantA.remediation.priority, 'number', 'Variant A priority is an integer');
  t.equal(variantA.remediation.priority, 1, 'critical → 1');
  t.equal(gap(failing.control_id).remediation.priority, 'critical', 'Variant B priority is a word');
  t.ok(Array.isArray(data.cross_framework.common_gaps));
  t.same(data.cross_framework_insights, { common_gaps: data.cross_framework.common_gaps }, 'Variant A carries common_gaps; Variant B adds the synergies');

  const again = await call(service, 'GET', `/v1/gap-analysis/${data.id}`, { key });
  t.equal(again.status, 200);
  t.equal(again.text, res.text, 'GET returns the same body as create');

  const other = await service.key('pro');
  const foreign = await call(service, 'GET', `/v1/gap-analysis/${data.id}`, { key: other });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.error.code, 'GAP_NOT_FOUND');
  const unknown = await call(service, 'GET', '/v1/gap-analysis/GAP-2026-01-01-0000000000', { key });
  t.equal(unknown.body.error.code, 'GAP_NOT_FOUND');

  const withResolved = await create(service, key, { frameworks: ['HIPAA'], findings: [finding('r-1', passing.signal_id, 'resolved')], options: { include_resolved: true, include_evidence_requirements: true } });
  t.equal(withResolved.body.data.by_framework.HIPAA.compliant[0].control.id, passing.control_id, 'include_resolved counts resolved as passing');
  const evidence = await create(service, key, { frameworks: ['HIPAA'], findings: [finding('e-1', failing.signal_id)], options: { include_evidence_requirements: true, include_remediation: false } });
  const evidenceGap = evidence.body.data.by_framework.HIPAA.gaps[0];
  t.ok(evidenceGap.evidence_requirements.length > 0, 'evidence items when asked');
  t.notOk('remediation' in evidenceGap, 'no remediation when include_remediation is false');
});

t.test('create errors', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());
  const pro = await service.key('pro');
  const teams = await service.key('teams');
  const [{ signal_id }] = primarySignals('SOC2', 1);

  const badStatus = await create(service, pro, { frameworks: ['SOC2'], findings: [finding('a', signal_id), finding('b', signal_id, 'done')] });
  t.equal(badStatus.status, 400);
  t.equal(badStatus.body.error.code, 'GAP_INVALID_FINDING');
  t.same(badStatus.body.error.details.index, 1);
  t.equal(badStatus.body.error.details.pointer, '/findings/1/status');

  const missingId = await create(service, pro, { frameworks: ['SOC2'], findings: [{ signal_id, status: 'open' }] });
  t.equal(missingId.body.error.code, 'GAP_INVALID_FINDING');
  t.equal(missingId.body.error.details.pointer, '/findings/0/id');

  const duplicate = await create(service, pro, { frameworks: ['SOC2'], findings: [finding('same', signal_id), finding('same', signal_id)] });
  t.equal(duplicate.body.error.code, 'GAP_INVALID_FINDING');
  t.match(duplicate.body.error.details.reason, /duplicate finding id same/);

  const badTime = await create(service, pro, { frameworks: ['SOC2'], findings: [finding('t', signal_id, 'open', { observed_at: 'yesterday' })] });
  t.equal(badTime.body.error.details.pointer, '/findings/0/observed_at');

  const variantB = await create(service, pro, { frameworks: ['SOC2'], findings: [{ id: 'b-1', signal_id }] });
  t.equal(variantB.status, 200, 'status and observed_at may be absent (Variant B); absent status reads as open');
  t.equal(variantB.body.data.by_framework.SOC2.gaps[0].findings[0].finding_status, 'open');

  const unknownSignals = await create(service, pro, { frameworks: ['SOC2'], findings: [finding('x', 'CSR-GEN-NOPE-X-001'), finding('y', signal_id), finding('z', 'CSR-GEN-NOPE-Y-002'), finding('w', 'CSR-GEN-NOPE-X-001')] });
  t.equal(unknownSignals.status, 400);
  t.equal(unknownSignals.body.error.code, 'GAP_SIGNAL_NOT_FOUND');
  t.same(unknownSignals.body.error.details.signal_ids, ['CSR-GEN-NOPE-X-001', 'CSR-GEN-NOPE-Y-002'], 'every unknown id, once');

  const unknownFramework = await create(service, pro, { frameworks: ['SOX'], findings: [] });
  t.equal(unknownFramework.body.error.code, 'GAP_FRAMEWORK_NOT_FOUND');
  t.same(unknownFramework.body.error.details.frameworks, ['SOX']);
  t.same(unknownFramework.body.error.details.valid_codes, ALL);

  const listingOnly = await create(service, pro, { frameworks: ['NIST-800-53'], findings: [] });
  t.equal(listingOnly.body.error.code, 'GAP_FRAMEWORK_NOT_FOUND', 'listing-only frameworks are not analysable');

  const tooManyFrameworks = await create(service, pro, { frameworks: ['SOC2', 'HIPAA'], findings: [] });
  t.equal(tooManyFrameworks.body.error.code, 'GAP_TOO_MANY_FRAMEWORKS');
  t.same(tooManyFrameworks.body.error.details, { count: 2, limit: 1, tier: 'pro' });

  const many = Array.from({ length: 101 }, (_, i) => finding(`f-${i}`, signal_id));
  const tooMany = await create(service, pro, { frameworks: ['SOC2'], findings: many });
  t.equal(tooMany.body.error.code, 'GAP_TOO_MANY_FINDINGS');
  t.same(tooMany.body.error.details, { count: 101, limit: 100, tier: 'pro' });
  const hundred = await create(service, pro, { frameworks: ['SOC2'], findings: many.slice(0, 100) });
  t.equal(hundred.status, 200, 'exactly the limit is fine');

  const teamsMany = await create(service, teams, { frameworks: ['SOC2'], findings: Array.from({ length: 501 }, (_, i) => finding(`f-${i}`, signal_id)) });
  t.same(teamsMany.body.error.details, { count: 501, limit: 500, tier: 'teams' });

  const badOption = await create(service, pro, { frameworks: ['SOC2'], findings: [], options: { min_confidence: 2 } });
  t.equal(badOption.body.error.code, 'invalid_parameter');
  t.equal(badOption.body.error.details.parameter, 'options.min_confidence');
  const unknownOption = await create(service, pro, { frameworks: ['SOC2'], findings: [], options: { verbose: true } });
  t.equal(unknownOption.body.error.details.parameter, 'options.verbose');

  const noFrameworks = await create(service, pro, { findings: [] });
  t.equal(noFrameworks.body.error.code, 'invalid_parameter');
  t.equal(noFrameworks.body.error.details.parameter, 'frameworks');

  const broken = await call(service, 'POST', '/v1/gap-analysis', { key: pro, rawBody: '{"frameworks":', headers: { 'content-type': 'application/json' } });
  t.equal(broken.body.error.code, 'invalid_json');

  const community = await service.key('community');
  const denied = await create(service, community, { frameworks: ['SOC2'], findings: [] });
  t.equal(denied.status, 403);
  t.equal(denied.body.error.code, 'GAP_TIER_REQUIRED');
  const deniedGet = await call(service, 'GET', '/v1/gap-analysis/summary', { key: community });
  t.equal(deniedGet.body.error.code, 'GAP_TIER_REQUIRED');
  const deniedCompare = await call(service, 'POST', '/v1/gap-analysis/compare', { key: pro, body: { baseline_id: 'a', current_id: 'b' } });
  t.equal(deniedCompare.status, 403);
  t.same(deniedCompare.body.error.details, { required_tier: 'teams', current_tier: 'pro' });
});

t.test('retention: 410 before and after the sweep', async (t) => {
  let now = new Date('2026-03-01T12:00:00Z');
  const service = await startTestService({ now: () => now });
  t.teardown(() => service.close());
  const key = await service.key('pro');
  const [{ signal_id }] = primarySignals('CIS', 1);
  const res = await create(service, key, { frameworks: ['CIS'], findings: [finding('f', signal_id)] });
  t.equal(res.headers.get('x-analysis-expires-at'), '2026-03-31T12:00:00.000Z', 'Pro keeps 30 days');
  t.match(res.headers.get('server-timing'), /^analysis;dur=\d+\.\d, store;dur=\d+\.\d$/, 'the analysis and the durable write are timed');
  const id = res.body.data.id;
  now = new Date('2026-03-31T11:59:59Z');
  t.equal((await call(service, 'GET', `/v1/gap-analysis/${id}`, { key })).status, 200, 'still there a second before expiry');
  now = new Date('2026-03-31T12:00:00Z');
  const expired = await call(service, 'GET', `/v1/gap-analysis/${id}`, { key });
  t.equal(expired.status, 410);
  t.equal(expired.body.error.code, 'GAP_EXPIRED');
  t.equal(expired.body.error.details.expired_at, '2026-03-31T12:00:00.000Z');
  t.equal(await service.services.analyses.sweep(now), 1);
  const swept = await call(service, 'GET', `/v1/gap-analysis/${id}`, { key });
  t.equal(swept.status, 410, 'a swept analysis still answers 410, not 404');

  const enterprise = await service.key('enterprise');
  const long = await create(service, enterprise, { frameworks: ['CIS'], findings: [finding('f', signal_id)] });
  t.equal(long.headers.get('x-analysis-expires-at'), '2027-03-31T12:00:00.000Z', 'Enterprise keeps 365 days');
});

t.test('summary: newest first, paging, filters, trend, isolation', async (t) => {
  let now = new Date('2026-05-01T00:00:00Z');
  const service = await startTestService({ now: () => now });
  t.teardown(() => service.close());
  const key = await service.key('teams');
  const [a, b] = primarySignals('PCIDSS', 2);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    now = new Date(now.getTime() + 3_600_000);
    // Fewer failing findings each time: the score rises.
    const findings = [finding('p', a.signal_id, 'false_positive'), ...(i < 3 ? [finding('q', b.signal_id, 'open')] : [finding('q', b.signal_id, 'false_positive')])];
    const res = await create(service, key, { frameworks: i === 4 ? ['PCIDSS', 'SOC2'] : ['PCIDSS'], findings });
    ids.push(res.body.data.id);
  }
  const other = await service.key('teams');
  await create(service, other, { frameworks: ['PCIDSS'], findings: [finding('z', a.signal_id)] });

  const page1 = await call(service, 'GET', '/v1/gap-analysis/summary?page=1&per_page=2', { key });
  t.equal(page1.status, 200);
  t.same(page1.body.data.analyses.map((x: { id: string }) => x.id), [ids[4], ids[3]], 'newest first');
  t.same(page1.body.meta, { total: 5, page: 1, per_page: 2, total_pages: 3, limit: 2 });
  t.same(page1.body.data.trend, { direction: 'stable', score_change: 0 });
  const item = page1.body.data.analyses[1];
  t.same(Object.keys(item).sort(), ['analysis_id', 'analysis_status', 'created_at', 'critical_gaps', 'expires_at', 'frameworks', 'high_gaps', 'id', 'overall_posture', 'posture_score', 'status'].sort());
  const page3 = await call(service, 'GET', '/v1/gap-analysis/summary?page=3&per_page=2', { key });
  t.same(page3.body.data.analyses.map((x: { id: string }) => x.id), [ids[0]]);
  const beyond = await call(service, 'GET', '/v1/gap-analysis/summary?page=9&per_page=2', { key });
  t.same(beyond.body.data.analyses, []);

  const variantB = await call(service, 'GET', '/v1/gap-analysis/summary?limit=3', { key });
  t.equal(variantB.body.data.analyses.length, 3);
  const filtered = await call(service, 'GET', '/v1/gap-analysis/summary?framework=soc2', { key });
  t.same(filtered.body.data.analyses.map((x: { id: string }) => x.id), [ids[4]]);
  const improving = await call(service, 'GET', '/v1/gap-analysis/summary?framework=PCIDSS&per_page=50', { key });
  t.equal(improving.body.data.analyses.length, 5);

  t.equal((await call(service, 'GET', '/v1/gap-analysis/summary?per_page=51', { key })).status, 400);
  t.equal((await call(service, 'GET', '/v1/gap-analysis/summary?limit=51', { key })).body.error.details.parameter, 'limit');
  t.equal((await call(service, 'GET', '/v1/gap-analysis/summary?status=done', { key })).body.error.details.parameter, 'status');
  t.equal((await call(service, 'GET', '/v1/gap-analysis/summary?framework=SOX', { key })).body.error.details.parameter, 'framework');
  const others = await call(service, 'GET', '/v1/gap-analysis/summary', { key: other });
  t.equal(others.body.meta.total, 1, 'only the caller’s analyses');
});

t.test('compare', async (t) => {
  let now = new Date('2026-06-01T00:00:00Z');
  const service = await startTestService({ now: () => now });
  t.teardown(() => service.close());
  const key = await service.key('teams');
  const [a, b, c] = primarySignals('ISO27001', 3);
  const baseline = await create(service, key, { frameworks: ['ISO27001', 'SOC2'], findings: [finding('1', a.signal_id, 'open'), finding('2', b.signal_id, 'open'), finding('3', c.signal_id, 'false_positive')] });
  now = new Date('2026-06-11T00:00:00Z');
  const current = await create(service, key, { frameworks: ['ISO27001', 'GDPR'], findings: [finding('1', a.signal_id, 'false_positive'), finding('2', b.signal_id, 'open'), finding('3', c.signal_id, 'open')] });
  const res = await call(service, 'POST', '/v1/gap-analysis/compare', { key, body: { baseline_id: baseline.body.data.id, current_id: current.body.data.id, options: { include_unchanged: true } } });
  t.equal(res.status, 200, res.text.slice(0, 300));
  const data = res.body.data;
  t.match(data.comparison_id, /^CMP-/);
  t.same(data.frameworks_compared, ['ISO27001']);
  t.same(data.frameworks_only_in_baseline, ['SOC2'], 'frameworks in one analysis only are reported');
  t.same(data.frameworks_only_in_current, ['GDPR']);
  const iso = data.by_framework.find((f: { framework: string }) => f.framework === 'ISO27001');
  t.equal(iso.controls_improved, 1, `${a.control_id}: non_compliant → compliant`);
  t.equal(iso.controls_regressed, 1, `${c.control_id}: compliant → non_compliant`);
  t.same(data.changes, { improved: 1, regressed: 1, new_gaps: 1, resolved: 1 });
  t.same(data.comparison.gaps_resolved.map((g: { control_id: string }) => g.control_id), [a.control_id]);
  t.same(data.comparison.gaps_added.map((g: { control_id: string }) => g.control_id), [c.control_id]);
  t.same(data.comparison.gaps_unchanged.map((g: { control_id: string; days_open: number }) => [g.control_id, g.days_open]), [[b.control_id, 10]]);
  t.equal(data.comparison.baseline.id, baseline.body.data.id);
  t.same(data.comparison.by_framework.ISO27001.controls_improved, 1);
  t.ok(['improving', 'declining', 'stable'].includes(data.comparison.trend.direction));

  const withoutUnchanged = await call(service, 'POST', '/v1/gap-analysis/compare', { key, body: { baseline_id: baseline.body.data.id, current_id: current.body.data.id } });
  t.notOk('gaps_unchanged' in withoutUnchanged.body.data.comparison);
  const foreign = await call(service, 'POST', '/v1/gap-analysis/compare', { key: await service.key('teams'), body: { baseline_id: baseline.body.data.id, current_id: current.body.data.id } });
  t.equal(foreign.body.error.code, 'GAP_NOT_FOUND');
  const missing = await call(service, 'POST', '/v1/gap-analysis/compare', { key, body: { baseline_id: baseline.body.data.id } });
  t.equal(missing.body.error.code, 'invalid_parameter');
  t.equal(missing.body.error.details.parameter, 'current_id');
});

t.test('large analyses go through the worker pool; a full queue answers 503', async (t) => {
  const service = await startTestService({ env: { WORKERS: '1', QUEUE_LIMIT: '1' } });
  t.teardown(() => service.close());
  const key = await service.key('enterprise');
  const ids = testRegistry().signalIds();
  const findings = Array.from({ length: 3000 }, (_, i) => finding(`f-${i}`, ids[i % ids.length], i % 3 ? 'open' : 'false_positive'));
  const one = await create(service, key, { frameworks: ALL, findings });
  t.equal(one.status, 200);
  t.equal(Object.keys(one.body.data.by_framework).length, 11);
  t.equal(one.body.data.summary.findings.submitted, 3000);

  const burst = await Promise.all(Array.from({ length: 6 }, () => create(service, key, { frameworks: ALL, findings })));
  const statuses = burst.map((r) => r.status);
  t.ok(statuses.includes(200), 'some are served');
  const second = burst.find((r) => r.status === 200)!;
  const compared = await call(service, 'POST', '/v1/gap-analysis/compare', { key, body: { baseline_id: one.body.data.id, current_id: second.body.data.id } });
  t.equal(compared.status, 200, 'compare of two large analyses (parsed in the pool)');
  t.same(compared.body.data.changes, { improved: 0, regressed: 0, new_gaps: 0, resolved: 0 }, 'the same findings twice: nothing changed');
  const busy = burst.find((r) => r.status === 503);
  t.ok(busy, `some are refused while the queue is full (${statuses.join(',')})`);
  t.equal(busy?.body.error.code, 'service_busy');
  t.equal(busy?.headers.get('retry-after'), '1');
});

t.test('answers written into the memory of answers already sent are each whole, their own, and the ones stored', async (t) => {
  const service = await startTestService({ env: { WORKERS: '1' } });
  t.teardown(() => service.close());
  const key = await service.key('enterprise');
  const ids = testRegistry().signalIds();
  // Above the inline size, so every one runs in the worker; sizes alternate so that answers land
  // in larger memory than they need, and outgrow what they are given.
  const bodyOf = (count: number) => ({ frameworks: ALL, findings: Array.from({ length: count }, (_, i) => finding(`n${count}-${i}`, ids[(i * 31) % ids.length])) });
  // With ?variant=a the answer is cut from the stored one into memory of its own, which also goes
  // to the workers once sent.
  const check = async (res: Awaited<ReturnType<typeof create>>, count: number, label: string, query = '') => {
    t.equal(res.status, 200, label);
    t.equal(res.body.data.summary.findings.submitted, count, `${label}: the answer to its own request`);
    const stored = await call(service, 'GET', `/v1/gap-analysis/${res.body.data.analysis_id}${query}`, { key });
    t.equal(stored.text, res.text, `${label}: the stored answer is the one sent`);
  };
  for (const count of [900, 150, 400]) await check(await create(service, key, bodyOf(count)), count, `one at a time, ${count} findings`);
  const { answerBuffers } = service.services.pool;
  const kept = answerBuffers.take();
  t.ok(kept && kept.byteLength > 0, 'a sent answer leaves its memory to the pool');
  answerBuffers.give(kept!);

  const counts = [700, 120, 1000, 60, 300, 850, 200, 500];
  // Some compressed (the answer is read again after the store, by the compressor), some not.
  const queryOf = (i: number) => (i % 4 === 1 ? '?variant=a' : '');
  const answers = await Promise.all(
    counts.map((count, i) => {
      const headers: Record<string, string> = i % 3 === 0 ? { 'accept-encoding': 'gzip' } : {};
      return call(service, 'POST', `/v1/gap-analysis${queryOf(i)}`, { key, body: bodyOf(count), headers });
    }),
  );
  for (const [i, res] of answers.entries()) await check(res, counts[i], `${counts[i]} findings, eight at once${queryOf(i)}`, queryOf(i));
  // And again, now that variants' memory has gone back to the workers too.
  const again = await Promise.all(counts.map((count, i) => call(service, 'POST', `/v1/gap-analysis${queryOf(i + 1)}`, { key, body: bodyOf(count) })));
  for (const [i, res] of again.entries()) await check(res, counts[i], `${counts[i]} findings, eight at once again${queryOf(i + 1)}`, queryOf(i + 1));
});

/**
 * POST from a client that reads nothing of the answer until `resume` resolves (a raw socket with
 * no reader: the kernel holds what it can, the server the rest), then reads it whole.
 */
function slowPost(service: TestService, path: string, key: string, body: unknown, resume: Promise<void>): Promise<{ status: number; text: string }> {
  const bytes = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
    socket.on('error', reject);
    socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`);
    socket.write(bytes);
    void resume.then(() => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => {
        const answer = Buffer.concat(chunks);
        const headEnd = answer.indexOf('\r\n\r\n');
        const head = answer.toString('latin1', 0, headEnd);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
        const text = answer.toString('utf8', headEnd + 4);
        resolve({ status: Number(head.split(' ')[1]), text: Buffer.byteLength(text) === length ? text : `(${Buffer.byteLength(text)} of ${length} bytes) ${text}` });
      });
    });
  });
}

t.test("an answer still being sent to a slow reader keeps its memory while later analyses run", async (t) => {
  const ids = testRegistry().signalIds();
  const bodyOf = (count: number, salt: string) => ({ frameworks: ALL, findings: Array.from({ length: count }, (_, i) => finding(`${salt}-${i}`, ids[(i * 31 + salt.length) % ids.length])) });
  for (const query of ['', '?variant=b']) {
    // A service of its own for each, so that the pool has room for the memory of the answer sent
    // slowly, were it given back too soon (the later analyses would then take it from under it).
    const service = await startTestService({ env: { WORKERS: '1' } });
    t.teardown(() => service.close());
    const key = await service.key('enterprise');
    let release!: () => void;
    const resume = new Promise<void>((done) => (release = done));
    // 24 MB (16 MB as Variant B): more than the sockets hold while the reader waits.
    const slow = slowPost(service, `/v1/gap-analysis${query}`, key, bodyOf(10_000, 'slow'), resume);
    // Until it is stored: its answer is then being sent, and waits for the reader.
    while ((await call(service, 'GET', '/v1/gap-analysis/summary', { key })).body.meta.total === 0) await new Promise((done) => setTimeout(done, 50));
    // Meanwhile analyses of other findings take whatever answer memory the pool has been given.
    const others = await Promise.all([1200, 2500, 800, 3000].map((count, i) => call(service, 'POST', `/v1/gap-analysis${query}`, { key, body: bodyOf(count, `other${i}`) })));
    t.ok(others.every((res) => res.status === 200), `${query || 'union'}: the other analyses answered`);
    release();
    const answer = await slow;
    t.equal(answer.status, 200);
    const { data } = JSON.parse(answer.text);
    const id = data.analysis_id ?? data.id;
    const stored = await call(service, 'GET', `/v1/gap-analysis/${id}${query}`, { key });
    t.ok(answer.text.length > 12_000_000, `${query || 'union'}: a large answer (${answer.text.length} bytes)`);
    t.equal(answer.text, stored.text, `${query || 'union'}: the slow reader got its own answer, whole`);
  }
});
