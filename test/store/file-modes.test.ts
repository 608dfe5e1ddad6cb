import t from 'tap';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { openDataStore } from '../../src/store/lmdb/database.js';
import { projectRoot } from '../../src/paths.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const octal = (mode: number) => mode.toString(8).padStart(4, '0');

// The usual umask: without an explicit mode, LMDB's files come out 0644 and the directory 0755.
const previousUmask = process.umask(0o022);
t.teardown(() => process.umask(previousUmask));

t.test('a new DATA_DIR is 0700 and its LMDB files 0600', async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'csr-modes-'));
  t.teardown(() => rmSync(parent, { recursive: true, force: true }));
  const dataDir = join(parent, 'data');
  const store = openDataStore(dataDir);
  await store.accounts.put('someone', { name: 'someone', tier: 'pro', created_at: '2026-11-23T00:00:00Z', updated_at: '2026-11-23T00:00:00Z' });
  await store.close();
  t.equal(octal(modeOf(dataDir)), '0700', 'the directory');
  for (const name of ['csr.lmdb', 'csr.lmdb-lock']) t.equal(octal(modeOf(join(dataDir, name))), '0600', name);
});

t.test('files an earlier version left readable by everyone are narrowed on open; an existing directory keeps its mode', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-modes-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await openDataStore(dataDir).close();
  chmodSync(dataDir, 0o755);
  for (const name of ['csr.lmdb', 'csr.lmdb-lock']) chmodSync(join(dataDir, name), 0o644);
  const store = openDataStore(dataDir);
  t.equal(store.accounts.get('nobody'), undefined, 'the store still opens and reads');
  await store.close();
  for (const name of ['csr.lmdb', 'csr.lmdb-lock']) t.equal(octal(modeOf(join(dataDir, name))), '0600', name);
  t.equal(octal(modeOf(dataDir)), '0755', 'the operator chose the directory mode');
});

t.test('the csr CLI creates the store with the same modes', async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'csr-modes-'));
  t.teardown(() => rmSync(parent, { recursive: true, force: true }));
  const dataDir = join(parent, 'data');
  execFileSync(process.execPath, [join(projectRoot, 'bin', 'csr.js'), 'keys', 'create', '--account', 'ops', '--tier', 'pro'], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  t.equal(octal(modeOf(dataDir)), '0700', 'the directory');
  for (const name of ['csr.lmdb', 'csr.lmdb-lock']) t.equal(octal(modeOf(join(dataDir, name))), '0600', name);
});
