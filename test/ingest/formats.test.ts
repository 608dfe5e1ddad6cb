import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { scannerImportRoutes } from '../../src/api/scanner-import.js';
import { GENERIC_MEDIA_TYPES, SCAN_ROWS } from '../../src/ingest/formats.js';
import { SCAN_FORMATS, type ScanFormat } from '../../src/ingest/model.js';
import { readScan } from '../../src/ingest/read.js';
import { ScanShapeError } from '../../src/ingest/shape.js';
import { fixture, FIXTURES } from './helpers.js';

const FIXTURE_FILES = readdirSync(FIXTURES).filter((name) => name !== 'README.md');

/** Every fixture as `auto` reads it: the format detected and the number of results. */
const detected = new Map<string, { format: ScanFormat; results: number }>();
for (const name of FIXTURE_FILES) {
  const read = readScan(fixture(name), 'auto');
  detected.set(name, { format: read.format, results: read.results.length });
}

t.test('the table has one row per format of the API, in detection order', async (t) => {
  t.same(new Set(SCAN_ROWS.map(([format]) => format)), new Set(SCAN_FORMATS));
  t.equal(SCAN_ROWS.length, SCAN_FORMATS.length);
  for (const [format, row] of SCAN_ROWS) {
    t.ok(row.label.length > 0, `${format} has a label`);
    t.ok(row.media_types.length > 0, `${format} names its media types`);
    for (const route of scannerImportRoutes)
      t.ok(
        row.media_types.every((type) => route.accepts?.includes(type)),
        `${format}: ${route.path} accepts its media types`,
      );
  }
  for (const route of scannerImportRoutes)
    for (const generic of GENERIC_MEDIA_TYPES) t.ok(route.accepts?.includes(generic), `${route.path} accepts ${generic}`);
});

t.test('every row has a real-shaped fixture that auto detects as that format and that holds results', async (t) => {
  for (const [format] of SCAN_ROWS) {
    const files = [...detected].filter(([, read]) => read.format === format && read.results > 0).map(([name]) => name);
    t.ok(files.length > 0, `${format}: a fixture in test/fixtures/scans (found ${files.join(', ') || 'none'})`);
  }
});

t.test('each fixture read under its own format name gives what auto gives', async (t) => {
  for (const [name, { format, results }] of detected) {
    const named = readScan(fixture(name), format);
    t.equal(named.results.length, results, `${name} as format=${format}`);
    t.same(named.considered, [format]);
  }
});

t.test('docs/ingest.md has a row for every format', async (t) => {
  const docs = readFileSync(join(projectRoot, 'docs', 'ingest.md'), 'utf8');
  for (const [format] of SCAN_ROWS) t.ok(docs.includes(`| \`${format}\` |`), format);
});

t.test('the fixtures README lists every fixture', async (t) => {
  const readme = fixture('README.md').toString('utf8');
  for (const name of FIXTURE_FILES) t.ok(readme.includes(`\`${name}\``), name);
});

t.test('a named format that does not match a file is refused, naming the format the file is', async (t) => {
  // Priority: no file answers 200 with 0 results for being read as something it is not.
  for (const [name, { format: actual }] of detected) {
    for (const [format] of SCAN_ROWS) {
      if (format === actual) continue;
      let outcome: string;
      try {
        const read = readScan(fixture(name), format);
        outcome = `read ${read.results.length}`;
        // A file may legitimately be of two formats (Prowler's ASFF is ASFF): then it reads with results.
        t.ok(read.results.length > 0, `${name} as ${format}: read only with results`);
      } catch (error) {
        outcome = error instanceof ScanShapeError ? `refused, found ${error.found}` : String(error);
        t.ok(error instanceof ScanShapeError && error.found === actual, `${name} as ${format}: ${outcome}`);
      }
    }
  }
});
