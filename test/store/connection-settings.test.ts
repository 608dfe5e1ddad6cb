import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionSettings, reconnectDelayS } from '../../src/store/postgres/connection.js';

/** DATABASE_URL's query string as src/store/postgres/connection.ts reads it (docs/cluster.md, "DATABASE_URL"). */
const defaults = { statementTimeoutMs: 1500 };

t.test('pool size, timeouts, and what reaches the driver', async (t) => {
  const plain = connectionSettings('postgres://csr:secret@db:5432/csr', defaults);
  t.same(
    [plain.max, plain.statementTimeout, plain.connectTimeoutS, plain.ssl, plain.tls],
    [10, '1500', 5, false, { mode: 'disable', verifies: 'nothing' }],
    'defaults',
  );
  const set = connectionSettings(
    'postgres://csr:secret@db:5432/csr?max=40&statement_timeout=2s&connect_timeout=3&application_name=x&options=-c%20work_mem%3D8MB',
    defaults,
  );
  t.same([set.max, set.statementTimeout, set.connectTimeoutS], [40, '2s', 3]);
  t.equal(
    set.url,
    'postgres://csr:secret@db:5432/csr?application_name=x&options=-c+work_mem%3D8MB',
    'its own parameters leave the URL; the rest go on to the server',
  );
  t.throws(() => connectionSettings('postgres://csr:secret@db/csr?max=0', defaults), /DATABASE_URL: max=0 is not a whole number in 1\.\.10000/);
  let message = '';
  try {
    connectionSettings('postgres://csr:secret@db/csr?max=ten', defaults);
  } catch (error) {
    message = (error as Error).message;
  }
  t.match(message, /max=ten/);
  t.notMatch(message, /secret/, 'never the password');
  t.throws(() => connectionSettings('postgres://db/csr?statement_timeout=soon', defaults), /statement_timeout=soon is not a duration/);
});

t.test('sslmode as libpq reads it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'csr-sslmode-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nnot parsed here\n-----END CERTIFICATE-----\n');
  const read = (query: string, host = 'db.example.internal') => connectionSettings(`postgres://csr@${host}:5432/csr?${query}`, defaults);
  t.equal(read('sslmode=disable').ssl, false);
  t.equal(read('sslmode=prefer').ssl, 'prefer');
  t.equal(read('sslmode=require').ssl, 'require', 'require without a root certificate: encrypted, not verified');
  t.same(read('sslmode=require').tls, { mode: 'require', verifies: 'nothing' });
  t.same(read(`sslmode=require&sslrootcert=${ca}`).tls, { mode: 'require', verifies: 'chain' }, 'with one: the chain is verified');
  const full = read(`sslmode=verify-full&sslrootcert=${ca}`);
  t.same(full.tls, { mode: 'verify-full', verifies: 'chain and host name' });
  t.match(full.ssl, { rejectUnauthorized: true, servername: 'db.example.internal' });
  t.ok(Buffer.isBuffer((full.ssl as { ca: Buffer }).ca), 'the root certificate is read from the file');
  t.notOk(full.url.includes('sslrootcert') || full.url.includes('sslmode'), 'and is not sent to the server as a setting');
  const byAddress = read(`sslmode=verify-full&sslrootcert=${ca}`, '10.0.0.7');
  t.equal((byAddress.ssl as { servername?: string }).servername, undefined, 'an IP address is no TLS server name, but is still checked');
  t.same(read('sslrootcert=system').tls, { mode: 'verify-full', verifies: 'chain and host name' }, "sslrootcert=system: Node's CAs, verify-full");
  t.throws(() => read('sslmode=require&sslrootcert=system'), /sslrootcert=system needs sslmode=verify-full/);
  t.throws(() => read('sslmode=verify-everything'), /sslmode=verify-everything is not one of disable, allow, prefer, require, verify-ca, verify-full/);
  t.throws(() => read(`sslmode=verify-full&sslrootcert=${join(dir, 'nope.pem')}`), /sslrootcert=.*nope\.pem cannot be read/);
});

t.test('reconnection starts at once and backs off to half a second', async (t) => {
  t.same([0, 1, 2, 3, 4, 5, 10, 50].map(reconnectDelayS), [0, 0, 0.1, 0.2, 0.4, 0.5, 0.5, 0.5]);
});
