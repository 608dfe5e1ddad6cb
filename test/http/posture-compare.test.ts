/**
 * Compare tells narrowing from fixing (docs/posture.md): a control assessed in the baseline and
 * not in the current analysis is `no_longer_assessed`, never resolved or improved, counted apart
 * in both variants of the comparison; a real fix is still resolved. Over a real socket.
 */
import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { finding, primarySignals } from '../helpers/findings.js';

const service = await startTestService();
t.teardown(() => service.close());
const key = await service.key('teams');
const signals = primarySignals('HIPAA', 6);
const create = async (findings: unknown[]) => {
  const res = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings } });
  if (res.status !== 200) throw new Error(res.text.slice(0, 300));
  return res.body.data as {
    id: string;
    by_framework: Record<string, { gaps: Array<{ control: { id: string } }>; compliant: Array<{ control: { id: string } }> }>;
  };
};
const compare = async (baseline: string, current: string) => {
  const res = await call(service, 'POST', '/v1/gap-analysis/compare', { key, body: { baseline_id: baseline, current_id: current } });
  t.equal(res.status, 200, res.text.slice(0, 300));
  return res.body.data;
};
const statusesOf = (data: Awaited<ReturnType<typeof create>>) => {
  const section = data.by_framework.HIPAA;
  return new Set([...section.gaps, ...section.compliant].map((c) => c.control.id));
};

t.test('a narrower scan is not a fix', async (t) => {
  // Five failing controls and one passing; then a scan that looks at one of them only, still failing.
  const baseline = await create([
    ...signals.slice(0, 5).map((s, i) => finding(`f-${i}`, s.signal_id, 'open')),
    finding('f-5', signals[5].signal_id, 'false_positive'),
  ]);
  const current = await create([finding('f-0', signals[0].signal_id, 'open')]);
  const before = statusesOf(baseline);
  const after = statusesOf(current);
  const gone = [...before].filter((id) => !after.has(id));
  t.ok(gone.length >= 5, `${gone.length} controls the baseline assessed and the current does not`);

  const data = await compare(baseline.id, current.id);
  t.match(data.changes, { resolved: 0, improved: 0, no_longer_assessed: gone.length }, 'Variant A: none resolved, none improved, counted apart');
  t.match(data.by_framework[0], { framework: 'HIPAA', controls_improved: 0, controls_no_longer_assessed: gone.length });
  t.same(data.comparison.gaps_resolved, [], 'Variant B: no gap resolved');
  t.same(data.comparison.by_framework.HIPAA.controls_no_longer_assessed, gone.length);
  const listed = data.comparison.no_longer_assessed as Array<{ control_id: string; framework: string; title: string; baseline_status: string }>;
  t.same(listed.map((c) => c.control_id).sort(), [...gone].sort(), 'each one named');
  const passing = listed.find((c) => c.control_id === signals[5].control_id);
  t.match(passing, { framework: 'HIPAA', baseline_status: 'compliant' }, 'with the status it had, compliant ones too');
  t.ok(listed.filter((c) => c.baseline_status === 'non_compliant').length >= 4, 'the failing ones were non-compliant');
  t.ok(
    listed.every((c) => typeof c.title === 'string' && c.title.length > 0),
    'with their titles',
  );
});

t.test('a fix is still resolved', async (t) => {
  const baseline = await create(signals.slice(0, 2).map((s, i) => finding(`f-${i}`, s.signal_id, 'open')));
  const current = await create([finding('f-0', signals[0].signal_id, 'false_positive'), finding('f-1', signals[1].signal_id, 'open')]);
  const data = await compare(baseline.id, current.id);
  t.ok(
    data.comparison.gaps_resolved.some((g: { control_id: string }) => g.control_id === signals[0].control_id),
    `${signals[0].control_id}: open → false positive is resolved`,
  );
  t.ok(data.changes.improved >= 1);
  t.equal(data.changes.no_longer_assessed, 0);
  t.same(data.comparison.no_longer_assessed, []);
});

t.test('the other way: controls assessed only now are new gaps or new passes, not no_longer_assessed', async (t) => {
  const baseline = await create([finding('f-0', signals[0].signal_id, 'open')]);
  const current = await create(signals.slice(0, 3).map((s, i) => finding(`f-${i}`, s.signal_id, 'open')));
  const data = await compare(baseline.id, current.id);
  t.equal(data.changes.no_longer_assessed, 0);
  t.ok(data.changes.new_gaps >= 2, 'newly assessed failing controls are new gaps');
});
