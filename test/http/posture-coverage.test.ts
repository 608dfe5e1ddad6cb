/**
 * What would assess the rest (docs/posture.md), over a real socket: GET
 * /v1/frameworks/{code}/coverage?tools=… for registry frameworks, checked against the registry's
 * own tool mappings → templates → signals → mappings at 0.7 or more; ranking, limit, the tools
 * parameter's forms and refusals; a custom framework's report without tools and its plan with
 * them; and each stored analysis's coverage_plan from the tools its findings came from.
 */
import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { finding, testRegistry } from '../helpers/findings.js';
import { sampleFramework } from '../custom-frameworks/fixtures.js';

const service = await startTestService();
t.teardown(() => service.close());
const teams = await service.key('teams');
const pro = await service.key('pro');
const enterprise = await service.key('enterprise');
const get = (path: string, key = teams) => call(service, 'GET', path, { key });
const registry = testRegistry();

/** The controls of `framework` each rule of `tool` reaches, read from the registry record by record. */
function rulesOf(tool: string, framework: string): Map<string, Set<string>> {
  const rules = new Map<string, Set<string>>();
  for (const id of registry.toolMappingIds({ tool_id: tool })) {
    const mapping = registry.toolMapping(id)!;
    const signal = registry.findingTemplate(mapping.finding_template_id)!.signal_id;
    let controls = rules.get(mapping.rule_id);
    if (!controls) rules.set(mapping.rule_id, (controls = new Set()));
    for (const m of registry.mappingsOfSignal(signal, framework)) if (m.confidence >= 0.7) controls.add(m.control_id);
  }
  return rules;
}
const union = (rules: Map<string, Set<string>>) => new Set([...rules.values()].flatMap((controls) => [...controls]));

t.test('HIPAA for prowler and checkov: assessable, not reached, and the rules that would reach the rest', async (t) => {
  const res = await get('/v1/frameworks/HIPAA/coverage?tools=prowler,checkov');
  t.equal(res.status, 200, res.text.slice(0, 300));
  const data = res.body.data;
  const catalog = registry.controls('HIPAA');
  t.match(data.framework, { code: 'HIPAA', custom: false });
  t.same(data.tools, ['checkov', 'prowler']);
  t.equal(data.min_confidence, 0.7);
  const expected = new Set([...union(rulesOf('prowler', 'HIPAA')), ...union(rulesOf('checkov', 'HIPAA'))]);
  t.ok(expected.size > 0, `prowler and checkov reach ${expected.size} HIPAA controls`);
  t.same(
    data.assessable.map((c: any) => c.id),
    catalog.filter((c) => expected.has(c.id)).map((c) => c.id),
    'assessable: exactly the controls their rules reach, in catalog order',
  );
  t.same(
    data.not_reached.map((c: any) => c.id),
    catalog.filter((c) => !expected.has(c.id)).map((c) => c.id),
    'not reached: every other control',
  );
  t.equal(data.summary.controls_total, catalog.length);
  t.equal(data.summary.assessable + data.summary.not_reached, catalog.length);
  t.equal(data.summary.coverage, Math.round((1000 * expected.size) / catalog.length) / 1000);
  t.ok(
    data.assessable.every((c: any) => c.title === catalog.find((k) => k.id === c.id)!.title),
    'with their titles',
  );

  const notReached = new Set(data.not_reached.map((c: any) => c.id));
  const rules = data.suggested_rules as Array<{ tool_id: string; rule_id: string; controls_reached: number; control_ids: string[] }>;
  t.ok(rules.length > 0 && rules.length <= 20, `${rules.length} suggested (default limit 20) of ${data.suggested_total}`);
  t.ok(
    rules.every((r) => r.tool_id !== 'prowler' && r.tool_id !== 'checkov'),
    'only other tools',
  );
  t.ok(
    rules.every((r) => r.control_ids.length === r.controls_reached && r.control_ids.every((id) => notReached.has(id))),
    'each names the not-reached controls it reaches',
  );
  t.ok(
    rules.every((r, i) => i === 0 || rules[i - 1].controls_reached >= r.controls_reached),
    'most reached first',
  );
  const top = rules[0];
  const topReach = [...(rulesOf(top.tool_id, 'HIPAA').get(top.rule_id) ?? [])].filter((id) => notReached.has(id));
  t.same([...topReach].sort(), [...top.control_ids].sort(), `${top.tool_id} ${top.rule_id}: as its tool mappings say`);
  const reachable = new Set(data.not_reached.filter((c: any) => c.reachable_by_other_tools).map((c: any) => c.id));
  t.equal(reachable.size, data.summary.reachable_by_other_tools);
  t.equal(data.summary.unreachable, data.summary.not_reached - data.summary.reachable_by_other_tools);

  const all = await get('/v1/frameworks/HIPAA/coverage?tools=prowler,checkov&limit=500');
  t.equal(all.body.data.suggested_rules.length, Math.min(500, data.suggested_total));
  t.same(all.body.data.suggested_rules.slice(0, rules.length), rules, 'limit cuts the same ranking');
  if (all.body.data.suggested_rules.length === data.suggested_total) {
    const covered = new Set(all.body.data.suggested_rules.flatMap((r: any) => r.control_ids));
    t.same(covered, reachable, 'reachable_by_other_tools: what the suggested rules reach');
  }
  const repeated = await get('/v1/frameworks/HIPAA/coverage?tools=Prowler&tools=checkov');
  t.same(repeated.body.data, data, 'repeated and any case: the same answer');
});

t.test('no tools: nothing assessable yet, every rule a suggestion; listing spellings', async (t) => {
  const res = await get('/v1/frameworks/pci-dss/coverage');
  t.equal(res.status, 200);
  t.equal(res.body.data.framework.code, 'PCIDSS');
  t.same(res.body.data.assessable, []);
  t.same(res.body.data.tools, []);
  t.equal(res.body.data.summary.not_reached, registry.controls('PCIDSS').length);
});

t.test('refusals', async (t) => {
  const unknown = await get('/v1/frameworks/HIPAA/coverage?tools=prowler,nosuchscanner');
  t.equal(unknown.status, 400);
  t.match(unknown.body.error, { code: 'invalid_parameter', details: { parameter: 'tools', value: 'nosuchscanner' } });
  t.ok(unknown.body.error.details.valid_values.includes('prowler'));
  t.equal((await get('/v1/frameworks/HIPAA/coverage?limit=501')).body.error.details.parameter, 'limit');
  const tier = await get('/v1/frameworks/HIPAA/coverage?tools=prowler', pro);
  t.match(tier.body.error, { code: 'GAP_TIER_REQUIRED', details: { required_tier: 'teams', current_tier: 'pro' } });
  const custom = await get('/v1/frameworks/ACME-ISP/coverage', teams);
  t.match(custom.body.error, { code: 'GAP_TIER_REQUIRED', details: { required_tier: 'enterprise', current_tier: 'teams' } });
  t.equal((await get('/v1/frameworks/NOPE/coverage', enterprise)).status, 404);
});

t.test('a custom framework: its report without tools, its plan with them', async (t) => {
  const sample = sampleFramework('PLAN-ISP');
  t.equal((await call(service, 'POST', '/v1/frameworks', { key: enterprise, body: sample.body })).status, 200);
  const report = await get('/v1/frameworks/PLAN-ISP/coverage', enterprise);
  t.equal(report.status, 200);
  t.match(report.body.data.summary, { controls_total: 4 }, 'the signal report as before');
  t.ok('assessable_by_scanner_rules' in report.body.data.summary);
  const plan = await get('/v1/frameworks/plan-isp/coverage?tools=prowler', enterprise);
  t.equal(plan.status, 200, plan.text.slice(0, 300));
  t.match(plan.body.data.framework, { code: 'PLAN-ISP', custom: true, revision: 1 });
  t.equal(plan.body.data.summary.controls_total, 4);
  t.ok(
    plan.body.data.not_reached.some((c: any) => c.id === 'AC-4' && c.reachable_by_other_tools === false),
    'AC-4, with no evidence, no rule reaches',
  );
});

t.test("each stored analysis carries the plan of its frameworks for its findings' tools", async (t) => {
  const scan = [
    'CHECK_ID;STATUS;SEVERITY;RESOURCE_UID;RESOURCE_TYPE;PROVIDER;TIMESTAMP',
    's3_bucket_default_encryption;FAIL;medium;arn:aws:s3:::example-logs;AwsS3Bucket;aws;2026-11-20 08:15:00',
    '',
  ].join('\n');
  const imported = await call(service, 'POST', '/v1/gap-analysis/import?frameworks=HIPAA,SOC2&format=prowler-csv', {
    key: teams,
    rawBody: scan,
    headers: { 'content-type': 'text/csv' },
  });
  t.equal(imported.status, 200, imported.text.slice(0, 300));
  const plan = imported.body.data.coverage_plan;
  t.same(plan.tools, ['prowler']);
  t.same(plan.other_sources, []);
  t.equal(plan.min_confidence, 0.7);
  t.same(
    plan.frameworks.map((f: any) => f.framework),
    ['HIPAA', 'SOC2'],
  );
  for (const framework of plan.frameworks) {
    const route = (await get(`/v1/frameworks/${framework.framework}/coverage?tools=prowler`)).body.data;
    t.equal(framework.controls_total, route.summary.controls_total, `${framework.framework}: the same controls`);
    t.equal(framework.assessable, route.summary.assessable, `${framework.framework}: as many assessable as the route says`);
    t.same(
      framework.not_reached,
      route.not_reached.map((c: any) => c.id),
      `${framework.framework}: the same not reached`,
    );
    t.equal(framework.reachable_by_other_tools, route.summary.reachable_by_other_tools);
    t.same(framework.suggested_rules, route.suggested_rules.slice(0, 10), `${framework.framework}: its ten best suggestions`);
    t.equal(framework.more_suggested_rules, route.suggested_total - framework.suggested_rules.length);
  }
  const stored = await call(service, 'GET', `/v1/gap-analysis/${imported.body.data.id}`, { key: teams });
  t.same(stored.body.data.coverage_plan, plan, 'stored with the analysis');

  const [signal] = registry.signalIds({ domain: 'HIPAA' });
  const posted = await call(service, 'POST', '/v1/gap-analysis', {
    key: teams,
    body: {
      frameworks: ['HIPAA'],
      findings: [finding('a', signal, 'open', { source: { tool: 'nessus' } }), finding('b', signal, 'open', { source: { tool: 'checkov' } })],
    },
  });
  t.equal(posted.status, 200, posted.text.slice(0, 300));
  t.same(posted.body.data.coverage_plan.tools, ['checkov'], "a finding's source.tool counts when the registry maps its rules");
  t.same(posted.body.data.coverage_plan.other_sources, ['nessus'], 'others are named');
});
