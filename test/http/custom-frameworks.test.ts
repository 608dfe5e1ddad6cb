/**
 * Custom frameworks over a real socket (docs/custom-frameworks.md): defining, listing, reading,
 * versioning and deleting them; privacy across accounts; using them in gap analysis beside the
 * registry's frameworks, in imports, comparisons, the analyses list, every export and the
 * cross-framework insights; a stored analysis staying readable after its framework changes.
 */
import t, { type Test } from 'tap';
import { startTestService, call, type CallResult } from '../helpers/service.js';
import { finding, primarySignals, testRegistry } from '../helpers/findings.js';
import { sampleFramework } from '../custom-frameworks/fixtures.js';

const service = await startTestService();
t.teardown(() => service.close());
await service.services.pool.ready;

const enterprise = await service.key('enterprise', 'acme');
const rival = await service.key('enterprise', 'rival');
const teams = await service.key('teams', 'small');

const as = (key: string) => ({
  get: (path: string) => call(service, 'GET', path, { key }),
  post: (path: string, body: unknown) => call(service, 'POST', path, { key, body }),
  put: (path: string, body: unknown) => call(service, 'PUT', path, { key, body }),
  delete: (path: string) => call(service, 'DELETE', path, { key }),
});
const acme = as(enterprise);
const other = as(rival);

function expectError(t: Test, res: CallResult, status: number, code: string, label = code): any {
  t.equal(res.status, status, `${label}: ${status}${res.status === status ? '' : ` (${res.text.slice(0, 300)})`}`);
  t.equal(res.body?.error?.code, code, `${label}: ${code}`);
  return res.body?.error?.details ?? {};
}

const sample = sampleFramework();

t.test('below Enterprise: the tier error of the other tier limits, and nothing custom is listed', async (t) => {
  const small = as(teams);
  for (const res of [await small.post('/v1/frameworks', sample.body), await small.put('/v1/frameworks/ACME-ISP', sample.body), await small.delete('/v1/frameworks/ACME-ISP'), await small.get('/v1/frameworks/template'), await small.get('/v1/frameworks/ACME-ISP/coverage')]) {
    const details = expectError(t, res, 403, 'GAP_TIER_REQUIRED');
    t.same(details, { required_tier: 'enterprise', current_tier: 'teams' });
  }
  const list = await small.get('/v1/frameworks');
  t.equal(list.status, 200);
  t.ok(list.body.data.every((f: any) => f.custom === false), 'registry frameworks only, each custom: false');
});

t.test('define, read, list, version and delete', async (t) => {
  const created = await acme.post('/v1/frameworks', sample.body);
  t.equal(created.status, 200, created.text.slice(0, 300));
  const framework = created.body.data;
  t.match(framework, { code: 'ACME-ISP', name: sample.body.name, version: '2026.1', custom: true, category: 'custom', revision: 1, control_count: 4, source_format: 'json', gap_analysis: true });
  t.same(framework.control_categories, ['Access control', 'Operations', 'People']);
  t.same(framework.versions.map((v: any) => [v.revision, v.version, v.control_count]), [[1, '2026.1', 4]]);
  const ac2 = framework.controls.find((c: any) => c.id === 'AC-2');
  t.same(ac2.corresponds_to, [{ framework: 'HIPAA', control_id: sample.equal.control_id, relationship: 'equal' }], 'framework codes stored canonical');
  const ac4 = framework.controls.find((c: any) => c.id === 'AC-4');
  t.same(ac4, { id: 'AC-4', title: 'Background checks for staff', description: '', category: 'People', level: null, guidance: '', evidence: [], signals: [], corresponds_to: [] }, 'defaults filled in');

  const read = await acme.get('/v1/frameworks/acme-isp');
  t.equal(read.status, 200, 'read back in any case');
  t.same(read.body.data, framework, 'as created');
  const builtIn = await acme.get('/v1/frameworks/hipaa');
  t.equal(builtIn.status, 200);
  t.match(builtIn.body.data, { code: 'HIPAA', custom: false });

  const list = await acme.get('/v1/frameworks');
  const codes = list.body.data.map((f: any) => f.code);
  t.equal(codes.at(-1), 'ACME-ISP', 'listed after the registry frameworks');
  t.equal(list.body.meta.total, codes.length);
  t.match(list.body.data.at(-1), { code: 'ACME-ISP', custom: true, revision: 1, control_count: 4 });
  t.notOk(list.headers.get('etag'), 'an Enterprise listing is its own: no registry validator');
  const healthcare = await acme.get('/v1/frameworks?category=healthcare');
  t.notOk(healthcare.body.data.some((f: any) => f.custom), 'a category filter lists the registry frameworks of that category');

  const controls = await acme.get('/v1/frameworks/ACME-ISP/controls?per_page=2');
  t.equal(controls.status, 200);
  t.match(controls.body.data.framework, { code: 'ACME-ISP', custom: true, revision: 1 });
  t.same(controls.body.meta, { total: 4, page: 1, per_page: 2, total_pages: 2 });
  t.same(controls.body.data.controls[0].signal_ids, [sample.direct.signal_id], 'AC-1: its direct signal');
  t.ok(controls.body.data.controls[1].signal_ids.includes(sample.equal.signal_id), 'AC-2: the equal HIPAA control\'s signals');
  const people = await acme.get('/v1/frameworks/ACME-ISP/controls?category=people');
  t.same(people.body.data.controls.map((c: any) => c.id), ['AC-4']);
  const badCategory = await acme.get('/v1/frameworks/ACME-ISP/controls?category=nope');
  t.same(expectError(t, badCategory, 400, 'invalid_parameter').valid_values, ['Access control', 'Operations', 'People']);

  const duplicate = await acme.post('/v1/frameworks', sample.body);
  t.same(expectError(t, duplicate, 409, 'framework_exists'), { code: 'ACME-ISP', built_in: false });

  const sameVersion = await acme.put('/v1/frameworks/ACME-ISP', sample.body);
  t.match(expectError(t, sameVersion, 400, 'framework_invalid', 'the same version label again'), { pointer: '/version' });
  const next: Record<string, any> = { ...sample.body, version: '2026.2', controls: sample.body.controls.slice(0, 3) };
  delete next.code;
  const replaced = await acme.put('/v1/frameworks/acme-isp', next);
  t.equal(replaced.status, 200, replaced.text.slice(0, 300));
  t.match(replaced.body.data, { code: 'ACME-ISP', version: '2026.2', revision: 2, control_count: 3, created_at: framework.created_at });
  t.same(replaced.body.data.versions.map((v: any) => [v.revision, v.version, v.control_count]), [[1, '2026.1', 4], [2, '2026.2', 3]]);
  const renamed = await acme.put('/v1/frameworks/ACME-ISP', { ...next, code: 'OTHER', version: '3' });
  t.match(expectError(t, renamed, 400, 'framework_invalid', 'a body code other than the path'), { pointer: '/code' });
  expectError(t, await acme.put('/v1/frameworks/NOPE', { ...next, version: '9' }), 404, 'not_found', 'PUT does not create');
  expectError(t, await acme.put('/v1/frameworks/HIPAA', { ...next, version: '9' }), 404, 'not_found', 'PUT cannot touch a registry framework');

  // Another module of the suite uses ACME-ISP at revision 2; this one deletes its own.
  const scratch = await acme.post('/v1/frameworks', { ...sample.body, code: 'SCRATCH' });
  t.equal(scratch.status, 200);
  const deleted = await acme.delete('/v1/frameworks/scratch');
  t.same(deleted.body.data, { code: 'SCRATCH', deleted: true, revision: 1 });
  expectError(t, await acme.get('/v1/frameworks/SCRATCH'), 404, 'not_found', 'gone');
  expectError(t, await acme.delete('/v1/frameworks/SCRATCH'), 404, 'not_found', 'a second delete');
  expectError(t, await acme.delete('/v1/frameworks/HIPAA'), 404, 'not_found', 'a registry framework cannot be deleted');
});

t.test('a code cannot shadow a built-in one', async (t) => {
  for (const code of ['HIPAA', 'soc2', 'NIST-CSF', 'nist_csf', 'ISO-27001', 'NIST-800-53', 'template']) {
    const res = await acme.post('/v1/frameworks', { ...sample.body, code });
    t.same(expectError(t, res, 409, 'framework_exists', code), { code: code.toUpperCase(), built_in: true });
  }
});

t.test('a bad definition is refused where it is wrong, and nothing is stored', async (t) => {
  const cases: Array<[string, unknown, Record<string, unknown>]> = [
    ['no code', { ...sample.body, code: undefined }, { pointer: '/code' }],
    ['bad code', { ...sample.body, code: '1ACME' }, { pointer: '/code' }],
    ['no controls', { ...sample.body, code: 'BAD', controls: [] }, { pointer: '/controls' }],
    ['unknown field', { ...sample.body, code: 'BAD', owner: 'me' }, { pointer: '/owner' }],
    ['unknown signal', { ...sample.body, code: 'BAD', controls: [sample.body.controls[0], { id: 'X-1', title: 'x', signals: [{ signal_id: 'CSR-NOPE-NOPE-001' }] }] }, { pointer: '/controls/1/signals/0', control_id: 'X-1' }],
    ['unknown built-in control', { ...sample.body, code: 'BAD', controls: [{ id: 'X-1', title: 'x', corresponds_to: [{ framework: 'HIPAA', control_id: 'nope', relationship: 'equal' }] }] }, { pointer: '/controls/0/corresponds_to/0' }],
    ['unknown framework', { ...sample.body, code: 'BAD', controls: [{ id: 'X-1', title: 'x', corresponds_to: [{ framework: 'NOPE', control_id: '1', relationship: 'equal' }] }] }, { pointer: '/controls/0/corresponds_to/0' }],
    ['bad relationship', { ...sample.body, code: 'BAD', controls: [{ id: 'X-1', title: 'x', corresponds_to: [{ framework: 'HIPAA', control_id: sample.equal.control_id, relationship: 'same' }] }] }, { pointer: '/controls/0/corresponds_to/0/relationship' }],
    ['confidence over 1', { ...sample.body, code: 'BAD', controls: [{ id: 'X-1', title: 'x', signals: [{ signal_id: sample.direct.signal_id, confidence: 1.5 }] }] }, { pointer: '/controls/0/signals/0/confidence' }],
    ['duplicate control id', { ...sample.body, code: 'BAD', controls: [{ id: 'X-1', title: 'x' }, { id: 'X-1', title: 'y' }] }, { pointer: '/controls/1/id', control_id: 'X-1' }],
  ];
  for (const [label, body, expected] of cases) {
    const details = expectError(t, await acme.post('/v1/frameworks', body), 400, 'framework_invalid', label);
    t.match(details, { format: 'json', ...expected }, `${label}: where`);
    t.type(details.reason, 'string');
  }
  expectError(t, await call(service, 'POST', '/v1/frameworks', { key: enterprise, rawBody: '{"code":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
  expectError(t, await call(service, 'POST', '/v1/frameworks', { key: enterprise, rawBody: 'x', headers: { 'content-type': 'text/html' } }), 415, 'unsupported_media_type');
  expectError(t, await acme.get('/v1/frameworks/BAD'), 404, 'not_found', 'nothing stored');
});

t.test('another account never sees it', async (t) => {
  const details = expectError(t, await other.get('/v1/frameworks/ACME-ISP'), 404, 'not_found', 'read');
  t.same(details, { resource: 'Framework', id: 'ACME-ISP' });
  expectError(t, await other.get('/v1/frameworks/ACME-ISP/controls'), 404, 'not_found', 'controls');
  expectError(t, await other.get('/v1/frameworks/ACME-ISP/coverage'), 404, 'not_found', 'coverage');
  expectError(t, await other.put('/v1/frameworks/ACME-ISP', { ...sample.body, version: 'x' }), 404, 'not_found', 'put');
  expectError(t, await other.delete('/v1/frameworks/ACME-ISP'), 404, 'not_found', 'delete');
  const list = await other.get('/v1/frameworks');
  t.notOk(list.body.data.some((f: any) => f.custom), 'not listed');
  const analysis = await other.post('/v1/gap-analysis', { frameworks: ['ACME-ISP'], findings: [finding('f-1', sample.direct.signal_id)] });
  t.same(expectError(t, analysis, 400, 'GAP_FRAMEWORK_NOT_FOUND', 'not usable').frameworks, ['ACME-ISP']);
  // The same code is free for the other account: codes are per account.
  const theirs = await other.post('/v1/frameworks', { ...sample.body, name: 'Rival policy', controls: [sample.body.controls[3]] });
  t.equal(theirs.status, 200);
  t.equal((await acme.get('/v1/frameworks/ACME-ISP')).body.data.name, sample.body.name, 'each account reads its own');
  t.equal((await other.delete('/v1/frameworks/ACME-ISP')).status, 200);
  t.equal((await acme.get('/v1/frameworks/ACME-ISP')).status, 200, "deleting theirs leaves ours");
});
