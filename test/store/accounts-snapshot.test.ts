/**
 * A key created by another process is accepted as soon as its commit is done, even by a thread
 * whose LMDB read snapshot (one per event-loop turn in lmdb-js) was taken before it.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDataStore } from '../../src/store/lmdb/database.js';
import { LmdbAccountDirectory } from '../../src/store/lmdb/accounts.js';
import { projectRoot } from '../../src/paths.js';

t.test('a key the CLI created during this event-loop turn authenticates', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-snapshot-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const data = openDataStore(dataDir);
  t.teardown(() => data.close());
  const directory = new LmdbAccountDirectory(data);
  await directory.createKey('first', 'pro');
  // A read now takes this turn's snapshot; execFileSync blocks the turn while the CLI commits.
  t.equal(directory.authenticate('csr_0123456789abcdef_' + 'A'.repeat(43)), undefined, 'an unknown key (the snapshot is taken)');
  const output = execFileSync(process.execPath, [join(projectRoot, 'bin', 'csr.js'), 'keys', 'create', '--account', 'later', '--tier', 'enterprise'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  const key = output.trim().split('\n').at(-1)!;
  t.match(key, /^csr_[0-9a-f]{16}_/, 'the CLI printed a key');
  t.same(directory.authenticate(key), { name: 'later', tier: 'enterprise' }, 'accepted in the same turn');
});
