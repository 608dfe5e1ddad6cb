/**
 * Throughput with wrk (Debian package `wrk`): a C load generator that is faster than the service
 * on this machine, where autocannon tops out near 15,000 req/s and so sets the ceiling it measures.
 * One thread, 64 connections, each request with the next of the bench's keys (a Lua script).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

export interface WrkResult {
  requests: number;
  throughput_rps: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  errors: number;
  non_2xx: number;
  bytes_per_answer: number;
}

export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;
}

/**
 * A Lua script that sends each request with the next key in turn: a GET, or with `request`, that
 * method and the body read once from a file (an analysis request of megabytes does not belong in
 * the script's text).
 */
export function writeKeyScript(file: string, keys: string[], headers: Record<string, string> = {}, request?: { method: 'POST'; bodyFile: string }): void {
  const extra = Object.entries({ ...headers, ...(request && { 'content-type': 'application/json' }) })
    .map(([name, value]) => `["${name}"] = "${value}", `)
    .join('');
  const body = request ? `local f = assert(io.open(${JSON.stringify(request.bodyFile)}, "rb"))\nlocal body = f:read("*a")\nf:close()\n` : 'local body = nil\n';
  writeFileSync(
    file,
    `local keys = {${keys.map((k) => `"${k}"`).join(',')}}\nlocal i = 0\n${body}request = function()\n  i = i + 1\n  return wrk.format("${request?.method ?? 'GET'}", nil, { ${extra}["authorization"] = "Bearer " .. keys[(i % #keys) + 1] }, body)\nend\n`,
  );
}

/** wrk's duration units (us, ms, s) in milliseconds. */
function ms(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 'ms' ? value : match[2] === 's' ? value * 1000 : value * 60_000;
}

function bytes(text: string): number {
  const match = /^([\d.]+)(B|KB|MB|GB)$/.exec(text);
  if (!match) return Number.NaN;
  return Number(match[1]) * { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[match[2] as 'B'];
}

export function runWrk(url: string, script: string, durationSeconds: number, connections = 64): WrkResult {
  const out = execFileSync('wrk', ['-t1', `-c${connections}`, `-d${durationSeconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  const latency = (p: string) => ms(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '');
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const read = bytes(/requests in [^,]+, (\S+) read/.exec(out)?.[1] ?? '');
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    requests,
    throughput_rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)),
    p50_ms: latency('50'),
    p90_ms: latency('90'),
    p99_ms: latency('99'),
    max_ms: ms(/Latency\s+\S+\s+\S+\s+(\S+)/.exec(out)?.[1] ?? ''),
    errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    non_2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    bytes_per_answer: requests ? Math.round(read / requests) : 0,
  };
}
