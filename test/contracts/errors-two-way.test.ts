import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '../../src/core/errors.js';
import { projectRoot } from '../../src/paths.js';

// docs/errors.md and the error registry name the same codes: a row for every code
// (test/contracts/errors.test.ts), and a code for every row.
t.test('every code docs/errors.md documents is one the service can answer with', async (t) => {
  const doc = readFileSync(join(projectRoot, 'docs', 'errors.md'), 'utf8');
  const documented = [...doc.matchAll(/^\| `([A-Za-z_]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => [code, Number(status)] as const);
  t.ok(documented.length >= Object.keys(ERROR_CODES).length, 'the table is read');
  for (const [code, status] of documented) {
    t.ok(Object.hasOwn(ERROR_CODES, code), `${code} is in src/core/errors.ts`);
    t.equal(ERROR_CODES[code as keyof typeof ERROR_CODES]?.status, status, `${code} has the status the doc says`);
  }
  t.equal(new Set(documented.map(([code]) => code)).size, documented.length, 'each code documented once');
});
