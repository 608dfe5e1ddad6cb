/** Child process for the benchmark baseline: a bare uWS server answering with the bytes of a file. */
import { readFileSync } from 'node:fs';
import { startBaselineServer } from '../src/http/uws.js';

const server = await startBaselineServer('127.0.0.1', readFileSync(process.argv[2]));
process.stdout.write(`${server.port}\n`);
