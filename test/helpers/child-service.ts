import { spawn, type ChildProcess } from 'node:child_process';
import { SERVER_ENTRY, SERVICE_NODE_FLAGS } from '../../src/node-flags.js';

/**
 * The built service as a child process, started the way an operator starts it (its V8 flags, the
 * compiled entry point, configuration from the environment), on port 0. Tests that must outlive a
 * crash or kill the process (fuzzing, SIGKILL durability) use it instead of the in-process service.
 */
export interface ChildService {
  url: string;
  port: number;
  process: ChildProcess;
  /** Resolves with the exit code (or the signal's name) when the process has ended and all it wrote has been read. */
  exited: Promise<number | string>;
  /** Whether the process has ended. */
  readonly ended: boolean;
  /** The last lines the process wrote (stdout and stderr), for a report after a crash. */
  output(): string;
  /** SIGTERM and wait: the graceful stop. */
  stop(): Promise<number | string>;
  /** SIGKILL and wait: no cleanup of any kind. */
  kill(): Promise<number | string>;
}

const OUTPUT_LINES = 200;

/** `startTimeoutMs` only bounds a process that hangs: a loaded machine may take many seconds to start one. */
export async function startChildService(env: Record<string, string>, startTimeoutMs = 120_000): Promise<ChildService> {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, SERVER_ENTRY], {
    // info: the 'listening' line carries the port; errors (with their stacks) follow it.
    env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let ended = false;
  // 'close', not 'exit': the output is then read to its end.
  const exited = new Promise<number | string>((resolve) =>
    child.on('close', (code, signal) => {
      ended = true;
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not report its port within ${startTimeoutMs} ms:\n${lines.join('\n')}`)), startTimeoutMs);
    const collect = (stream: NodeJS.ReadableStream) => {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop()!;
        for (const line of parts) {
          lines.push(line);
          if (lines.length > OUTPUT_LINES) lines.shift();
          if (line.includes('"listening"')) {
            try {
              const port = (JSON.parse(line) as { port?: number }).port;
              if (port) {
                clearTimeout(timer);
                resolve(port);
              }
            } catch {
              // Not a log line of ours: keep it in the output and read on.
            }
          }
        }
      });
    };
    collect(child.stdout!);
    collect(child.stderr!);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}) before listening:\n${lines.join('\n')}`));
    });
  });
  const signalAndWait = (signal: NodeJS.Signals) => {
    if (!ended) child.kill(signal);
    return exited;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    process: child,
    exited,
    get ended() {
      return ended;
    },
    output: () => lines.join('\n'),
    stop: () => signalAndWait('SIGTERM'),
    kill: () => signalAndWait('SIGKILL'),
  };
}
