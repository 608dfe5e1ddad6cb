import fc from 'fast-check';
import { FuzzHarness, Violation } from './harness.js';
import { anyCase } from './operations.js';

export interface FuzzOptions {
  runs: number;
  seed: number;
  /** Record broken invariants and go on, instead of stopping at the first and shrinking it. */
  keepGoing?: boolean;
  onProgress?: (harness: FuzzHarness) => void;
}

export interface FuzzOutcome {
  harness: FuzzHarness;
  /** fast-check's report when a case broke an invariant (shrunk counterexample, seed, path). */
  failure?: string;
  /** Every violation seen in keep-going mode. */
  violations: string[];
  durationMs: number;
}

/** The seed from FUZZ_SEED, or a fresh one; either way the caller prints it. */
export function seedFromEnv(): number {
  const raw = process.env.FUZZ_SEED;
  if (raw !== undefined && raw !== '') {
    if (!/^-?\d+$/.test(raw)) throw new Error(`FUZZ_SEED=${raw} is not an integer`);
    return Number(raw);
  }
  return Math.floor(Math.random() * 2 ** 31);
}

/** Runs `runs` generated requests over every operation against a fresh service, then stops it. */
export async function fuzzService(options: FuzzOptions, env: Record<string, string> = {}): Promise<FuzzOutcome> {
  const harness = await FuzzHarness.start(env);
  const started = Date.now();
  const violations: string[] = [];
  try {
    const property = fc.asyncProperty(anyCase(harness.operations, harness.vocabulary), async (fuzzCase) => {
      try {
        await harness.run(fuzzCase);
      } catch (error) {
        if (!(options.keepGoing && error instanceof Violation)) throw error;
        violations.push(error.message);
      }
      if (harness.cases % 500 === 0) options.onProgress?.(harness);
    });
    const details = await fc.check(property, { seed: options.seed, numRuns: options.runs, endOnFailure: false });
    const failure = details.failed ? `${fc.defaultReportMessage(details)}\n\nWhat broke, for the shrunk case:\n${errorText(details.errorInstance)}` : undefined;
    return { harness, failure, violations, durationMs: Date.now() - started };
  } finally {
    await harness.close();
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error instanceof Violation ? error.message : (error.stack ?? error.message)) : String(error);
}
