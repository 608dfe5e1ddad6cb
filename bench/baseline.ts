/**
 * Child process for the benchmark baseline: a bare uWS server answering with the bytes of a file,
 * and the header lines of a second file (JSON pairs) when given.
 */
import { readFileSync } from 'node:fs';
import { startBaselineServer } from '../src/http/uws.js';

const headers = process.argv[3] ? (JSON.parse(readFileSync(process.argv[3], 'utf8')) as [string, string][]) : undefined;
const server = await startBaselineServer('127.0.0.1', readFileSync(process.argv[2]), headers);
process.stdout.write(`${server.port}\n`);
