import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openStores } from '../../src/store/open.js';
import { connect } from '../../src/store/postgres/connection.js';
import { serverMissing, startPostgres, throwaway } from '../helpers/servers.js';

/**
 * DATABASE_URL's TLS, pool and timeout settings against a real PostgreSQL with ssl on and a
 * private CA made here with openssl (docs/cluster.md, "DATABASE_URL"): verify-full checks the
 * chain and the host name (an IP address too), verify-ca the chain only, require encrypts without
 * verifying, a wrong CA stops the node with a message that says so; `max` and
 * `statement_timeout` reach the pool and the server.
 */
const openssl = spawnSync('openssl', ['version']).error === undefined;

function ca(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  execFileSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
  ]);
  return { cert, key };
}

/** A server certificate signed by `authority` for the given subjectAltName entries. */
function serverCert(dir: string, name: string, authority: { cert: string; key: string }, altNames: string): { cert: string; key: string } {
  const key = join(dir, `${name}.key`);
  const request = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.pem`);
  const extensions = join(dir, `${name}.ext`);
  writeFileSync(extensions, `subjectAltName=${altNames}\n`);
  execFileSync('openssl', [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    request,
    '-subj',
    `/CN=${name}`,
  ]);
  execFileSync('openssl', [
    'x509',
    '-req',
    '-in',
    request,
    '-CA',
    authority.cert,
    '-CAkey',
    authority.key,
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    '2',
    '-extfile',
    extensions,
  ]);
  return { cert, key };
}

async function failure(work: () => Promise<unknown>): Promise<string> {
  try {
    const stores = (await work()) as { close(): Promise<void> };
    await stores.close();
    return 'connected';
  } catch (error) {
    return (error as Error).message;
  }
}

t.test(
  'DATABASE_URL: TLS against a private CA, pool size and statement timeout',
  { skip: serverMissing('postgres') || (!openssl && 'SKIPPED: openssl not found (Debian package openssl)') },
  async (t) => {
    const pg = await throwaway(t, startPostgres);
    if (!pg) return;
    const dir = mkdtempSync(join(tmpdir(), 'csr-tls-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const authority = ca(dir, 'csr-test-ca');
    const stranger = ca(dir, 'another-ca');
    const byAddress = serverCert(dir, 'db-local', authority, 'DNS:localhost,IP:127.0.0.1');
    const byNameOnly = serverCert(dir, 'db-elsewhere', authority, 'DNS:db.example.internal');

    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    t.teardown(() => admin.end());
    const [{ data_directory: dataDir }] = await admin<{ data_directory: string }[]>`SHOW data_directory`;
    const owner = statSync(dataDir);
    // PostgreSQL reads its key only when it belongs to it and no one else may read it.
    const useCertificate = async (pair: { cert: string; key: string }) => {
      for (const file of [pair.cert, pair.key, dir]) chownSync(file, owner.uid, owner.gid);
      chmodSync(pair.key, 0o600);
      await admin.unsafe(`ALTER SYSTEM SET ssl_cert_file = '${pair.cert}'`);
      await admin.unsafe(`ALTER SYSTEM SET ssl_key_file = '${pair.key}'`);
      await admin`ALTER SYSTEM SET ssl = on`;
      await admin`SELECT pg_reload_conf()`;
    };
    await useCertificate(byAddress);
    const base = new URL(pg.url);
    const url = (host: string, params: Record<string, string>) => {
      const u = new URL(base);
      u.hostname = host;
      for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
      return u.toString();
    };
    const open = (databaseUrl: string) => openStores({ dataDir: dir, databaseUrl });
    const encrypted = async (databaseUrl: string) => {
      const stores = await open(databaseUrl);
      try {
        // The store's own pool: a key listing is one query on it; pg_stat_ssl then tells whether csr's connections use TLS.
        await stores.accounts.listAccounts();
        const rows = await admin<{ ssl: boolean }[]>`SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'csr'`;
        return rows.length > 0 && rows.every((r) => r.ssl);
      } finally {
        await stores.close();
      }
    };

    await t.test('verify-full with the private CA: by IP address and by host name', async (t) => {
      t.equal(await encrypted(url('127.0.0.1', { sslmode: 'verify-full', sslrootcert: authority.cert })), true, '127.0.0.1 (an IP subjectAltName)');
      t.equal(await encrypted(url('localhost', { sslmode: 'verify-full', sslrootcert: authority.cert })), true, 'localhost (a DNS subjectAltName)');
    });

    await t.test('a certificate from another CA stops the node with the reason', async (t) => {
      const message = await failure(() => open(url('127.0.0.1', { sslmode: 'verify-full', sslrootcert: stranger.cert })));
      t.match(message, /certificate/i, message);
      t.equal((await failure(() => open(url('127.0.0.1', { sslmode: 'verify-ca', sslrootcert: stranger.cert })))) !== 'connected', true, 'verify-ca too');
      t.equal(await encrypted(url('127.0.0.1', { sslmode: 'require' })), true, 'require encrypts without verifying (as libpq without a root certificate)');
      t.match(
        await failure(() => open(url('127.0.0.1', { sslmode: 'require', sslrootcert: stranger.cert }))),
        /certificate/i,
        'require with a root certificate verifies the chain, as libpq does',
      );
    });

    await t.test('a server certificate for another host name: verify-full refuses, verify-ca accepts', async (t) => {
      await useCertificate(byNameOnly);
      t.teardown(() => useCertificate(byAddress));
      const message = await failure(() => open(url('127.0.0.1', { sslmode: 'verify-full', sslrootcert: authority.cert })));
      t.match(message, /IP: 127\.0\.0\.1 is not in the cert's list|does not match/i, message);
      t.equal(await encrypted(url('127.0.0.1', { sslmode: 'verify-ca', sslrootcert: authority.cert })), true);
    });

    await t.test('an unreadable sslrootcert names the parameter', async (t) => {
      t.match(
        await failure(() => open(url('127.0.0.1', { sslmode: 'verify-full', sslrootcert: join(dir, 'missing.pem') }))),
        /DATABASE_URL: sslrootcert=.*missing\.pem cannot be read/,
      );
    });

    await t.test('max and statement_timeout reach the pool and the server', async (t) => {
      // connect() is how the store opens its pool (src/store/postgres/open.ts).
      const sql = connect(url('127.0.0.1', { max: '3', statement_timeout: '750ms' }));
      t.teardown(() => sql.end());
      const answers = await Promise.all(Array.from({ length: 8 }, () => sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`));
      t.equal(new Set(answers.map(([row]) => row.pid)).size, 3, 'eight queries at once on max=3 use three connections');
      t.equal((await sql<{ statement_timeout: string }[]>`SHOW statement_timeout`)[0].statement_timeout, '750ms', 'the URL sets the server-side timeout');
      await t.rejects(sql`SELECT pg_sleep(2)`, { code: '57014' }, 'and the server applies it');
      const defaults = connect(url('127.0.0.1', {}), { statementTimeoutMs: 1500 });
      t.teardown(() => defaults.end());
      t.equal((await defaults<{ statement_timeout: string }[]>`SHOW statement_timeout`)[0].statement_timeout, '1500ms', 'without it, the store deadline');
    });
  },
);
