import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';

export const FIXTURES = join(projectRoot, 'test', 'fixtures', 'scans');

export function fixture(name: string): Buffer {
  return readFileSync(join(FIXTURES, name));
}
