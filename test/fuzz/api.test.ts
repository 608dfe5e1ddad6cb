import t from 'tap';
import { fuzzService, seedFromEnv } from './lib/session.js';
import { summarise } from './lib/report.js';

// A few thousand generated requests over every operation (npm run fuzz runs 10,000 and more).
// A failure prints the seed and the shrunk request; FUZZ_SEED=<seed> npm test replays it.
const seed = seedFromEnv();
const runs = Number(process.env.FUZZ_TEST_RUNS ?? 3_000);

t.test(`fuzzed requests over every operation (FUZZ_SEED=${seed})`, async (t) => {
  const outcome = await fuzzService({ runs, seed });
  t.comment(summarise(outcome, seed));
  t.notOk(outcome.failure, 'no 5xx, every 4xx in the documented envelope, the service and its pool alive after every case');
  if (outcome.failure) t.comment(outcome.failure);
  const { harness } = outcome;
  t.equal(harness.operationCounts.size, harness.operations.length, `cases reached all ${harness.operations.length} operations of the OpenAPI document`);
  // Scanner files are not generated well-formed (their readers have their own tests): those
  // operations get malformed and hostile bytes only, so their 2xx answers are not expected.
  const fileBodies = new Set(harness.operations.filter((operation) => operation.fileBody).map((operation) => operation.name));
  // Webhooks and an account's own frameworks: a generated body is rarely a valid framework or a
  // public receiver URL (private addresses are refused), and the ids of the other operations name
  // things no case created; test/webhooks and test/http/custom-frameworks* check their successes.
  const stateful = (name: string) => / \/v1\/webhooks/.test(name) || /^(POST|PUT|DELETE) \/v1\/frameworks/.test(name);
  const neverSucceeded = [...harness.operationCounts]
    .filter(([name, counts]) => counts.succeeded === 0 && !fileBodies.has(name) && !stateful(name))
    .map(([name]) => name);
  // A few thousand cases give each operation about 80; the export POST succeeds in about 1 of 15
  // (own analysis, a format the tier has, frameworks of that analysis), so one operation may miss.
  t.ok(
    neverSucceeded.length <= 1,
    `all JSON operations but at most one answered 2xx to some case, so generated requests get past validation (none: ${neverSucceeded.join(', ') || 'none'})`,
  );
  t.equal(harness.restarts, 0, 'the service never had to be restarted');
});
