/**
 * The writer table: one entry per export format, each with what the route needs (content type,
 * extension, tier) and a writer for where it runs; the worker task renders only pooled formats.
 */
import t from 'tap';
import { EXPORT_FORMATS } from '../../src/schemas/export.js';
import { renderExport } from '../../src/export/render.js';
import { EXPORT_WRITERS } from '../../src/export/writers.js';
import { TIERS } from '../../src/tiers.js';

t.test('every format has one writer', async (t) => {
  t.same(Object.keys(EXPORT_WRITERS).sort(), [...EXPORT_FORMATS].sort());
  const types = Object.values(EXPORT_WRITERS).map((w) => w.contentType);
  t.equal(new Set(types).size, types.length, 'content types are distinct');
  for (const [format, writer] of Object.entries(EXPORT_WRITERS)) {
    t.equal(writer.extension, format, `${format}: files are named .${format}`);
    t.ok(TIERS.includes(writer.tier), `${format}: a known tier`);
    if (writer.runs === 'worker-pool') t.type(await writer.load(), 'function', `${format}: its renderer loads`);
    else t.type(writer.stream, 'function', `${format}: streams`);
  }
});

t.test('the worker task refuses a streamed format', async (t) => {
  await t.rejects(
    renderExport({
      format: 'csv',
      payload: new Uint8Array(),
      options: { include_remediation: true, include_evidence: false },
      account: 'a',
      generatedAt: '2026-11-21T00:00:00.000Z',
    }),
    /streamed/,
  );
});
