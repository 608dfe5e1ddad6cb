import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { projectRoot } from '../../src/paths.js';
import { INLINE_ANALYSIS_MAX_BYTES } from '../../src/api/gap-analysis.js';
import { startChildService, type ChildService } from '../helpers/child-service.js';
import { testRegistry } from '../helpers/findings.js';

// SIGKILL during a stream of analysis creates: every analysis the service answered 200 for was
// committed before the answer, so after a restart on the same DATA_DIR each one reads back with
// the bytes it was first answered with. Unanswered creates may or may not be stored.
/** Kills per run; DURABILITY_ROUNDS=5 for the figures in docs/reliability.md. */
const ROUNDS = Number(process.env.DURABILITY_ROUNDS ?? 2);
const CLIENTS = 4;
/** Acknowledged creates per round before the kill (the kill waits for in-flight ones too). */
const ACKED_BEFORE_KILL = 8;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Analysis bodies of two sizes: small ones run on the HTTP thread, those over 16 KiB in the pool. */
function analysisBodies(): Buffer[] {
  const signals = testRegistry()
    .signalIds({ domain: 'HIPAA' })
    .concat(testRegistry().signalIds({ domain: 'SOC2' }));
  const statuses = ['open', 'resolved', 'in_progress', 'false_positive'];
  const body = (count: number, salt: string) =>
    Buffer.from(
      JSON.stringify({
        frameworks: ['HIPAA', 'SOC2'],
        findings: Array.from({ length: count }, (_, i) => ({
          id: `${salt}-${i}`,
          signal_id: signals[i % signals.length],
          status: statuses[i % statuses.length],
          observed_at: '2026-11-20T10:00:00Z',
        })),
      }),
    );
  const bodies = [body(5, 'small'), body(160, 'pooled')];
  if (bodies[1].length <= INLINE_ANALYSIS_MAX_BYTES) throw new Error('the pooled body must exceed the inline size');
  return bodies;
}

t.test('every acknowledged analysis survives SIGKILL mid-stream, byte for byte', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'csr-durability-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir, WORKERS: '1', LOG_LEVEL: 'info' };
  const created = execFileSync(process.execPath, [join(projectRoot, 'bin', 'csr.js'), 'keys', 'create', '--account', 'durable', '--tier', 'enterprise'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  const key = created.trim().split('\n').at(-1)!;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const bodies = analysisBodies();
  /** id → SHA-256 of the bytes the create answered with. */
  const acknowledged = new Map<string, string>();
  let service: ChildService | undefined;
  t.teardown(() => service?.kill());

  for (let round = 1; round <= ROUNDS; round++) {
    service = await startChildService(env);
    const url = service.url;
    // Everything acknowledged in earlier rounds, read back from the restarted process.
    let readBack = 0;
    for (const [id, digest] of acknowledged) {
      const response = await fetch(`${url}/v1/gap-analysis/${id}`, { headers });
      const bytes = Buffer.from(await response.arrayBuffer());
      if (response.status === 200 && sha256(bytes) === digest) readBack++;
      else t.fail(`round ${round}: ${id} answered ${response.status}${response.status === 200 ? ' with other bytes' : ''}`);
    }
    t.equal(readBack, acknowledged.size, `round ${round}: all ${acknowledged.size} analyses acknowledged before earlier kills read back unchanged`);

    let ackedThisRound = 0;
    let inFlight = 0;
    let stopped = false;
    let failure: Error | undefined;
    // Settles when this round has its acknowledgements, or at the first failure.
    let killTime!: () => void;
    const readyToKill = new Promise<void>((resolve) => (killTime = resolve));
    const client = async (index: number) => {
      for (let n = 0; !stopped; n++) {
        inFlight++;
        try {
          const response = await fetch(`${url}/v1/gap-analysis`, { method: 'POST', headers, body: bodies[(index + n) % bodies.length] as BodyInit });
          const bytes = Buffer.from(await response.arrayBuffer());
          if (response.status !== 200) throw new Error(`create answered ${response.status}: ${bytes.toString().slice(0, 200)}`);
          const id = JSON.parse(bytes.toString('utf8')).data.analysis_id as string;
          acknowledged.set(id, sha256(bytes));
          if (++ackedThisRound >= ACKED_BEFORE_KILL) killTime();
        } catch (error) {
          // After the kill the connection drops: that create was never acknowledged.
          if (!stopped) {
            failure ??= error as Error;
            stopped = true;
            killTime();
          }
        } finally {
          inFlight--;
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));
    await readyToKill;
    if (failure) {
      await Promise.all(clients);
      throw failure;
    }
    const inFlightAtKill = inFlight;
    stopped = true;
    await service.kill();
    await Promise.all(clients);
    t.ok(inFlightAtKill > 0, `round ${round}: killed with ${inFlightAtKill} creates in flight (${ackedThisRound} acknowledged this round)`);
  }

  service = await startChildService(env);
  let intact = 0;
  for (const [id, digest] of acknowledged) {
    const response = await fetch(`${service.url}/v1/gap-analysis/${id}`, { headers });
    if (response.status === 200 && sha256(Buffer.from(await response.arrayBuffer())) === digest) intact++;
  }
  t.equal(intact, acknowledged.size, `after ${ROUNDS} kills: all ${acknowledged.size} acknowledged analyses read back byte for byte`);
  const listed = (await (await fetch(`${service.url}/v1/gap-analysis/summary?per_page=50`, { headers })).json()) as { meta: { total: number } };
  t.ok(listed.meta.total >= acknowledged.size, `the account lists ${listed.meta.total} analyses, at least the ${acknowledged.size} acknowledged`);
  t.equal(await service.stop(), 0, 'the restarted service still stops gracefully');
});
