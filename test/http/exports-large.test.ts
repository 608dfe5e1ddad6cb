/**
 * A 10,000-finding analysis over all 11 frameworks, exported in every format to a reader that
 * pauses: json and csv are streamed under backpressure, xlsx and pdf sent whole. Full lane
 * (package.json, tap.exclude): about a minute of CPU on two cores.
 */
import t from 'tap';
import { get as httpGet } from 'node:http';
import { startTestService, call, type TestService } from '../helpers/service.js';
import { finding, testRegistry } from '../helpers/findings.js';
import { createAnalysis } from '../export/fixture.js';
import { parseCsv, pdfPageCount, readWorkbook } from '../export/read-back.js';

const ALL = ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA'];

/** GET with a reader that stops for `pauseMs` after the first chunk, so the server meets backpressure. */
function slowGet(
  service: TestService,
  path: string,
  key: string,
  pauseMs: number,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(`${service.url}${path}`, { headers: { authorization: `Bearer ${key}` }, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let paused = false;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (!paused) {
          paused = true;
          response.pause();
          setTimeout(() => response.resume(), pauseMs);
        }
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

t.test('a 10,000-finding analysis over 11 frameworks streams to a slow reader', async (t) => {
  const service = await startTestService({ env: { WORKERS: '2' } });
  t.teardown(() => service.close());
  const key = await service.key('enterprise');
  const signals = testRegistry().signalIds();
  const statuses = ['open', 'in_progress', 'accepted', 'false_positive', 'resolved'];
  const findings = Array.from({ length: 10_000 }, (_, i) => finding(`finding-${i}`, signals[(i * 7) % signals.length], statuses[i % statuses.length]));
  const { id, result } = await createAnalysis(service, key, { frameworks: ALL, findings });
  const stored = await call(service, 'GET', `/v1/gap-analysis/${id}`, { key });
  t.ok(stored.text.length > 3_000_000, `stored result is ${(stored.text.length / 1e6).toFixed(1)} MB`);
  const assessed = ALL.reduce((sum, code) => sum + result.data.by_framework[code].gaps.length + result.data.by_framework[code].compliant.length, 0);
  const path = `/v1/gap-analysis/${id}/export`;

  const json = await slowGet(service, `${path}?format=json`, key, 300);
  t.equal(json.status, 200);
  t.equal(json.headers['transfer-encoding'], 'chunked', 'json is streamed');
  const parsed = JSON.parse(json.body.toString('utf8'));
  t.same({ data: parsed.data, meta: parsed.meta }, JSON.parse(stored.text), 'the whole stored result arrives intact');

  const csv = await slowGet(service, `${path}?format=csv`, key, 300);
  t.equal(csv.headers['transfer-encoding'], 'chunked', 'csv is streamed');
  const rows = await parseCsv(csv.body.toString('utf8'));
  t.equal(rows.length - 1, assessed, `one row per assessed control (${assessed})`);

  const xlsx = await slowGet(service, `${path}?format=xlsx`, key, 300);
  t.equal(Number(xlsx.headers['content-length']), xlsx.body.length, 'xlsx is sent whole with its length');
  const workbook = await readWorkbook(xlsx.body);
  const gapRows = workbook.getWorksheet('Gaps')!.rowCount - 1;
  t.equal(
    gapRows,
    ALL.reduce((sum, code) => sum + result.data.by_framework[code].gaps.length, 0),
    'every gap in the Gaps sheet',
  );

  const pdf = await slowGet(service, `${path}?format=pdf`, key, 300);
  t.equal(Number(pdf.headers['content-length']), pdf.body.length, 'pdf is sent whole with its length');
  t.ok((await pdfPageCount(pdf.body)) > 10, 'the report holds the full gap register');
});
