import autocannon from 'autocannon';
import type { Scenario } from './scenarios/index.js';

/** Loads one scenario with autocannon for its duration, each request with the next key in turn. */
export function load(port: number, scenario: Scenario, keys: string[]): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url: `http://127.0.0.1:${port}${scenario.path}`,
    method: scenario.method,
    connections: scenario.connections,
    duration: scenario.durationSeconds,
    headers: { 'content-type': 'application/json', ...scenario.headers },
    requests: [
      {
        method: scenario.method,
        path: scenario.path,
        body: scenario.body,
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${keys[next++ % keys.length]}` } }),
      },
    ],
  });
}
