import t from 'tap';
import { readScan, UnknownScanFormatError } from '../../src/ingest/read.js';
import { ScanShapeError } from '../../src/ingest/shape.js';
import { ApiError } from '../../src/core/errors.js';
import { fixture } from './helpers.js';

const bytes = (text: string) => Buffer.from(text);

function shapeError(text: string, format: Parameters<typeof readScan>[1]): ScanShapeError {
  try {
    readScan(bytes(text), format);
  } catch (error) {
    if (error instanceof ScanShapeError) return error;
    throw error;
  }
  throw new Error('expected a ScanShapeError');
}

t.test('a file that stops matching its format names the format and the JSON pointer', async (t) => {
  const sarif = shapeError('{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"}}]}]}', 'sarif');
  t.same([sarif.format, sarif.where], ['sarif', { pointer: '/runs/0/results/0/ruleId' }]);
  const checkov = shapeError('{"check_type":"terraform","results":{"failed_checks":[{"check_name":"no id"}]}}', 'checkov');
  t.same(checkov.where, { pointer: '/results/failed_checks/0/check_id' });
  const trivy = shapeError('{"SchemaVersion":2,"Results":[{"Target":"a","Misconfigurations":{"ID":"KSV001"}}]}', 'trivy');
  t.same(trivy.where, { pointer: '/Results/0/Misconfigurations' });
  t.match(trivy.reason, /must be an array/);
  const ocsf = shapeError('[{"class_uid":1001,"metadata":{}}]', 'ocsf');
  t.same(ocsf.where, { pointer: '/0/class_uid' });
  const kube = shapeError('{"Controls":[{"version":"1.6","tests":[{"results":[{"test_number":"1.1.1"}]}]}]}', 'kube-bench');
  t.same(kube.where, { pointer: '/Controls/0/tests/0/results/0/status' });
});

t.test('CSV errors name the line', async (t) => {
  const missing = shapeError('A;B\n1;2\n', 'prowler-csv');
  t.same(missing.where, { line: 1 });
  t.match(missing.reason, /CHECK_ID, STATUS/);
  const ragged = shapeError('CHECK_ID;STATUS\ns3_x;FAIL\n"multi\nline";PASS;extra\n', 'prowler-csv');
  t.same(ragged.where, { line: 3 }, 'the line a row starts on');
  const unclosed = shapeError('CHECK_ID;STATUS\ns3_x;"FAIL\n', 'prowler-csv');
  t.same(unclosed.where, { line: 2 });
});

t.test('broken JSON names the line; a named JSON format refuses CSV at line 1', async (t) => {
  const broken = shapeError('[\n{"CheckID": "a"\n "Status": 1}\n]', 'prowler-native');
  t.same(broken.where, { line: 3 });
  const csv = shapeError('CHECK_ID;STATUS\n', 'trivy');
  t.same(csv.where, { line: 1 });
});

t.test('auto: a document no format matches lists every format considered; an empty array is ambiguous', async (t) => {
  t.throws(() => readScan(bytes('{"hello": 1}'), 'auto'), UnknownScanFormatError);
  try {
    readScan(bytes('[]'), 'auto');
  } catch (error) {
    t.ok(error instanceof UnknownScanFormatError);
    t.ok((error as UnknownScanFormatError).considered.includes('sarif'));
  }
  t.throws(() => readScan(bytes('just text\n'), 'auto'), UnknownScanFormatError);
  t.same(readScan(bytes('[]'), 'trivy').results, [], 'with the format named, an empty array is an empty scan');
});

t.test('JSON nested beyond the limit is refused before parsing (json_too_deep)', async (t) => {
  const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
  try {
    readScan(bytes(deep), 'auto');
    t.fail('expected json_too_deep');
  } catch (error) {
    t.equal(error instanceof ApiError && error.code, 'json_too_deep');
  }
});

t.test('a named format that does not match is refused naming what the file is, never read as 0 results', async (t) => {
  const kics = fixture('kics.json');
  const asTrivy = shapeError(kics.toString('utf8'), 'trivy');
  t.same([asTrivy.format, asTrivy.found, asTrivy.where], ['trivy', 'kics', { pointer: '' }]);
  t.match(asTrivy.reason, /KICS JSON file \(format=kics\), not Trivy JSON/);
  const csvAsJson = shapeError(fixture('prowler.csv').toString('utf8'), 'trivy');
  t.same([csvAsJson.found, csvAsJson.where], ['prowler-csv', { line: 1 }]);
  const unknown = shapeError('{"hello": "world"}', 'trivy');
  t.same([unknown.found, unknown.where], [null, { pointer: '' }], 'nothing recognises it and the reader finds nothing in it');
  t.match(unknown.reason, /has none of the fields of Trivy JSON/);
  t.same(readScan(bytes('{"SchemaVersion": 2, "ArtifactName": "web", "Results": []}'), 'trivy').results, [], 'a Trivy report that truly holds no results');
  const empty = shapeError('   ', 'checkov');
  t.match(empty.reason, /is empty/);
});

t.test('XML is untrusted: a DTD or entity declaration is refused before parsing; nesting is bounded', async (t) => {
  const laughs = `<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>\n<NessusClientData_v2>&lol2;</NessusClientData_v2>`;
  const refused = shapeError(laughs, 'nessus');
  t.same([refused.format, refused.where], ['nessus', { line: 2 }]);
  t.match(refused.reason, /DTD or an entity/);
  const external = `<?xml version="1.0"?><!doctype r SYSTEM "file:///etc/passwd"><NessusClientData_v2/>`;
  t.match(shapeError(external, 'nessus').reason, /DTD or an entity/);
  try {
    readScan(bytes(`<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>`), 'auto');
    t.fail('expected a refusal');
  } catch (error) {
    t.ok(error instanceof ScanShapeError, 'refused under auto too');
  }
  const deep = `<NessusClientData_v2>${'<a>'.repeat(200)}${'</a>'.repeat(200)}</NessusClientData_v2>`;
  t.ok(shapeError(deep, 'nessus') instanceof ScanShapeError, 'nesting beyond the bound is refused');
  t.match(shapeError('<NessusClientData_v2><Report>', 'nessus').reason, /not well-formed XML/);
});
