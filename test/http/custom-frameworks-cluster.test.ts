/**
 * Cluster mode (docs/cluster.md): two service nodes over one PostgreSQL. A custom framework
 * created on one node is usable on the very next request on the other, in an analysis and its
 * export; a new version or a delete on one node is what the other answers next. Over real
 * sockets; SKIPPED without the PostgreSQL binaries.
 */
import t from 'tap';
import { startTestService, call } from '../helpers/service.js';
import { createDatabase, startPostgres, throwaway } from '../helpers/servers.js';
import { finding } from '../helpers/findings.js';
import { sampleFramework } from '../custom-frameworks/fixtures.js';

const server = await throwaway(t, startPostgres);
if (server) {
  const url = createDatabase(server.url, 'custom_cluster');
  const [a, b] = await Promise.all([0, 1].map(() => startTestService({ env: { DATABASE_URL: url } })));
  t.teardown(() => Promise.all([a.close(), b.close()]));
  await Promise.all([a.services.pool.ready, b.services.pool.ready]);

  const key = await a.key('enterprise', 'cluster-acme');
  // Node B's key replica follows the database within a second (docs/cluster.md).
  const started = Date.now();
  while (!b.services.accounts.authenticate(key) && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 10));
  t.ok(b.services.accounts.authenticate(key), `node B knows the key (${Date.now() - started} ms)`);

  const sample = sampleFramework('CLUSTER-ISP');
  const findings = [finding('f-1', sample.direct.signal_id), finding('f-2', sample.equal.signal_id)];

  t.test('created on one node, usable on the next request on the other', async (t) => {
    const created = await call(a, 'POST', '/v1/frameworks', { key, body: sample.body });
    t.equal(created.status, 200, created.text.slice(0, 200));
    const read = await call(b, 'GET', '/v1/frameworks/CLUSTER-ISP', { key });
    t.equal(read.status, 200, 'node B reads it');
    t.same(read.body.data, created.body.data);
    t.ok(
      (await call(b, 'GET', '/v1/frameworks', { key })).body.data.some((f: any) => f.code === 'CLUSTER-ISP'),
      'and lists it',
    );
    const analysis = await call(b, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['CLUSTER-ISP', 'HIPAA'], findings } });
    t.equal(analysis.status, 200, analysis.text.slice(0, 200));
    t.match(analysis.body.data.by_framework['CLUSTER-ISP'], { custom: true, revision: 1 });
    const exported = await call(a, 'GET', `/v1/gap-analysis/${analysis.body.data.id}/export?format=csv&frameworks=cluster-isp`, { key });
    t.equal(exported.status, 200, 'the analysis made on B exports from A');
    t.match(exported.text, /CLUSTER-ISP/);

    const next = await call(b, 'PUT', '/v1/frameworks/CLUSTER-ISP', { key, body: { ...sample.body, version: '2' } });
    t.equal(next.body.data.revision, 2, 'a new version on B');
    const again = await call(a, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['CLUSTER-ISP'], findings } });
    t.match(again.body.data.by_framework['CLUSTER-ISP'], { version: '2', revision: 2 }, 'is what A analyses against next');

    t.equal((await call(a, 'DELETE', '/v1/frameworks/CLUSTER-ISP', { key })).status, 200);
    t.equal((await call(b, 'GET', '/v1/frameworks/CLUSTER-ISP', { key })).status, 404, 'deleted on A, gone on B');
    const gone = await call(b, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['CLUSTER-ISP'], findings } });
    t.equal(gone.body.error?.code, 'GAP_FRAMEWORK_NOT_FOUND');
    t.equal((await call(b, 'GET', `/v1/gap-analysis/${analysis.body.data.id}`, { key })).status, 200, 'its analyses stay readable');
  });
}
