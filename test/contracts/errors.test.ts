import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, ApiError } from '../../src/core/errors.js';
import { projectRoot } from '../../src/paths.js';

t.test('every error code is documented in docs/errors.md with its status', async (t) => {
  const doc = readFileSync(join(projectRoot, 'docs', 'errors.md'), 'utf8');
  for (const [code, { status }] of Object.entries(ERROR_CODES)) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    t.ok(row, `${code} has a row`);
    t.match(row ?? '', new RegExp(`^\\| \`${code}\` \\| ${status} \\|`), `${code} row states HTTP ${status}`);
  }
});

t.test('every code docs/errors.md documents is declared in src/core/errors.ts with that status, once', async (t) => {
  const doc = readFileSync(join(projectRoot, 'docs', 'errors.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `([^`]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => ({ code, status: Number(status) }));
  t.ok(rows.length >= Object.keys(ERROR_CODES).length, `${rows.length} documented codes`);
  for (const { code, status } of rows) {
    t.ok(Object.hasOwn(ERROR_CODES, code), `${code} is declared in src/core/errors.ts`);
    t.equal(ERROR_CODES[code as keyof typeof ERROR_CODES]?.status, status, `${code} is declared with HTTP ${status}`);
  }
  const seen = new Set<string>();
  for (const { code } of rows) {
    t.notOk(seen.has(code), `${code} has one row`);
    seen.add(code);
  }
});

t.test('the spec codes are all present with the spec statuses', async (t) => {
  const spec: Record<string, number> = {
    unauthorized: 401,
    not_found: 404,
    invalid_parameter: 400,
    rate_limited: 429,
    GAP_INVALID_FINDING: 400,
    GAP_SIGNAL_NOT_FOUND: 400,
    GAP_FRAMEWORK_NOT_FOUND: 400,
    GAP_TOO_MANY_FINDINGS: 400,
    GAP_TOO_MANY_FRAMEWORKS: 400,
    GAP_TIER_REQUIRED: 403,
    GAP_NOT_FOUND: 404,
    GAP_EXPIRED: 410,
  };
  for (const [code, status] of Object.entries(spec)) t.equal(ERROR_CODES[code as keyof typeof ERROR_CODES]?.status, status, code);
});

t.test('messages render details and the wire shape is the envelope', async (t) => {
  const error = new ApiError('not_found', { resource: 'Signal', id: 'CSR-X-001' });
  t.same(error.toBody(), { error: { code: 'not_found', message: 'Signal not found: CSR-X-001', details: { resource: 'Signal', id: 'CSR-X-001' } } });
  t.same(new ApiError('unauthorized').toBody(), { error: { code: 'unauthorized', message: 'API key is invalid or missing' } });
});
