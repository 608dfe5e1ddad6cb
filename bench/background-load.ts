/**
 * A scenario's load from a process of its own: the bench runs the `alongside` load here, so that
 * the load it measures and the load that only keeps the service busy do not share one event loop
 * (a flood of 96 connections sending 2 MB bodies would otherwise set the latency it measures).
 * Reads {port, scenario, keysFile} from the JSON file named by argv[2], writes autocannon's result as JSON.
 */
import { readFileSync } from 'node:fs';
import { load } from './load.js';
import type { Scenario } from './scenarios/index.js';

const { port, scenario, keysFile } = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { port: number; scenario: Scenario; keysFile: string };
const keys = readFileSync(keysFile, 'utf8').split('\n').filter(Boolean);
process.stdout.write(JSON.stringify(await load(port, scenario, keys)));
