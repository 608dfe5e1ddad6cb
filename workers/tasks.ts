/**
 * Piscina task module: thin wrappers over pure functions in src/. Each worker opens the compiled
 * registry read-only once, on its first task, and keeps it for its life.
 */
import { workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { Registry } from '../src/registry/registry.js';
import { analyze as analyzeRequest, type AnalyzeTask, type AnalyzeOutput } from '../src/gap/analyze.js';

let registry: Registry | undefined;

function openRegistry(): Registry {
  registry ??= Registry.open((workerData as { registryDir: string }).registryDir);
  return registry;
}

/** Wraps a result so Piscina transfers `buffer` to the main thread instead of copying it. */
function transferring<T>(value: T, buffer: ArrayBufferLike): T {
  return { [Piscina.transferableSymbol]: buffer, [Piscina.valueSymbol]: value } as unknown as T;
}

export function analyze(task: AnalyzeTask): AnalyzeOutput {
  const output = analyzeRequest(openRegistry(), task);
  return output.ok ? transferring(output, output.payload.buffer) : output;
}
