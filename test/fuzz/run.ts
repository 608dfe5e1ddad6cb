/**
 * npm run fuzz: at least 10,000 generated requests over every operation of the OpenAPI document
 * against the real service; prints the seed first and the answers by status at the end.
 *   FUZZ_SEED   replay a session (printed by every run)
 *   FUZZ_RUNS   number of cases (default 10,000)
 *   FUZZ_KEEP_GOING=1   list every broken invariant instead of stopping at the first and shrinking it
 * Exit status 1 when a case broke an invariant.
 */
import { fuzzService, seedFromEnv } from './lib/session.js';
import { summarise } from './lib/report.js';

const seed = seedFromEnv();
const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`FUZZ_RUNS=${process.env.FUZZ_RUNS} is not a positive integer`);
const keepGoing = process.env.FUZZ_KEEP_GOING === '1';
process.stdout.write(`FUZZ_SEED=${seed} FUZZ_RUNS=${runs}${keepGoing ? ' FUZZ_KEEP_GOING=1' : ''}\n`);

const outcome = await fuzzService({
  runs,
  seed,
  keepGoing,
  onProgress: (harness) => process.stdout.write(`  ${harness.cases} requests…\n`),
});
process.stdout.write(`${summarise(outcome, seed)}\n`);
if (outcome.violations.length) {
  process.stdout.write(`\n${outcome.violations.length} broken invariants:\n`);
  for (const violation of outcome.violations) process.stdout.write(`\n---\n${violation}\n`);
}
if (outcome.failure) process.stdout.write(`\n${outcome.failure}\n`);
process.exit(outcome.failure || outcome.violations.length ? 1 : 0);
