import type { FuzzOutcome } from './session.js';

/** The figures of a fuzz session as text: cases, answers by status and by error code, operations. */
export function summarise(outcome: FuzzOutcome, seed: number): string {
  const { harness } = outcome;
  const lines = [
    `FUZZ_SEED=${seed}: ${harness.cases} requests in ${(outcome.durationMs / 1000).toFixed(1)} s over ${harness.operations.length} operations; service restarts: ${harness.restarts}`,
  ];
  lines.push('answers by status:');
  for (const [status, count] of [...harness.statusCounts].sort(([a], [b]) => a - b)) lines.push(`  ${status}  ${count}`);
  lines.push('error codes:');
  for (const [code, count] of [...harness.codeCounts].sort(([, a], [, b]) => b - a)) lines.push(`  ${code.padEnd(26)} ${count}`);
  const neverSucceeded = [...harness.operationCounts].filter(([, counts]) => counts.succeeded === 0).map(([name, counts]) => `${name} (${counts.cases} cases)`);
  lines.push(`operations with no 2xx answer: ${neverSucceeded.length ? neverSucceeded.join(', ') : 'none'}`);
  return lines.join('\n');
}
