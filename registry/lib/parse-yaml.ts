/**
 * YAML parsing of the source files, the slowest step of a build (several MB of YAML). Large
 * source sets are parsed in worker threads, files spread over them by size; small ones (test
 * fixtures) inline, where a thread would cost more than it saves. Either way the result is the
 * same: per file, the parsed value or the syntax errors with line and column.
 */
import { availableParallelism } from 'node:os';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import YAML from 'yaml';

export interface YamlInput {
  rel: string;
  text: string;
}

export interface YamlError {
  line?: number;
  col?: number;
  message: string;
}

export type YamlResult = { rel: string; value: unknown; errors?: undefined } | { rel: string; value?: undefined; errors: YamlError[] };

/** Below this many bytes of YAML, parsing inline is faster than starting threads. */
const THREAD_THRESHOLD_BYTES = 1_000_000;
const BYTES_PER_THREAD = 500_000;
const MAX_THREADS = 4;
const WORKER_MARK = { mark: 'csr-registry-parse-yaml' };

export function parseYamlText(input: YamlInput): YamlResult {
  const doc = YAML.parseDocument(input.text);
  if (doc.errors.length) {
    return {
      rel: input.rel,
      errors: doc.errors.map((error) => ({ line: error.linePos?.[0].line, col: error.linePos?.[0].col, message: error.message.split('\n')[0] })),
    };
  }
  return { rel: input.rel, value: doc.toJS() as unknown };
}

function parseInWorker(inputs: YamlInput[]): Promise<YamlResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: WORKER_MARK });
    worker.once('message', (results: YamlResult[]) => {
      resolve(results);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.postMessage(inputs);
  });
}

/** Parses every input; results come back in input order. */
export async function parseYamlFiles(inputs: YamlInput[]): Promise<YamlResult[]> {
  const total = inputs.reduce((sum, input) => sum + input.text.length, 0);
  const threads = Math.min(MAX_THREADS, availableParallelism(), Math.ceil(total / BYTES_PER_THREAD));
  if (total < THREAD_THRESHOLD_BYTES || threads < 2) return inputs.map(parseYamlText);

  // Largest files first, each to the least loaded thread.
  const groups = Array.from({ length: threads }, () => ({ bytes: 0, inputs: [] as YamlInput[] }));
  for (const input of [...inputs].sort((a, b) => b.text.length - a.text.length)) {
    const group = groups.reduce((least, g) => (g.bytes < least.bytes ? g : least));
    group.bytes += input.text.length;
    group.inputs.push(input);
  }
  const results = (await Promise.all(groups.map((g) => parseInWorker(g.inputs)))).flat();
  const byRel = new Map(results.map((r) => [r.rel, r]));
  return inputs.map((input) => byRel.get(input.rel)!);
}

// Worker side: only in a thread started above (the mark keeps it out of other workers that import this).
if (parentPort && (workerData as { mark?: string } | null)?.mark === WORKER_MARK.mark) {
  const port = parentPort;
  port.once('message', (inputs: YamlInput[]) => port.postMessage(inputs.map(parseYamlText)));
}
