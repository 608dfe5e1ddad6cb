import t from 'tap';
import { call, startTestService } from '../helpers/service.js';
import { exchange } from '../helpers/raw-http.js';
import { finding, testRegistry } from '../helpers/findings.js';

// Request-level defects an adversarial review found, over real sockets; each stays fixed.
const service = await startTestService();
t.teardown(() => service.close());
const key = await service.key('enterprise');

t.test('a framing header sent twice is refused and the connection closed: nothing smuggled behind it runs', async (t) => {
  const smuggled = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
  const cases: Array<[string, string]> = [
    [
      'two different Content-Lengths',
      `POST /v1/mappings/bulk HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: ${2 + smuggled.length}\r\n\r\n{}${smuggled}`,
    ],
    ['the same Content-Length twice', `POST /v1/mappings/bulk HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}${smuggled}`],
    [
      'Transfer-Encoding twice',
      `POST /v1/mappings/bulk HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n${smuggled}`,
    ],
    ['HEAD with two Content-Lengths', `HEAD /v1/signals HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`],
    ['two Hosts', `GET /v1/signals HTTP/1.1\r\nHost: x\r\nHost: y\r\nAuthorization: Bearer ${key}\r\n\r\n${smuggled}`],
  ];
  for (const [name, request] of cases) {
    const { answers, closed } = await exchange(service.url, [request], 2);
    t.equal(answers.length, 1, `${name}: one answer`);
    t.ok(closed, `${name}: the connection is closed after it`);
    t.equal(answers[0].status, 400, name);
    const error = JSON.parse(answers[0].text).error;
    t.equal(error.code, 'header_repeated', name);
    t.match(error.details.header, /^(content-length|transfer-encoding|host)$/, name);
  }
  const once = await exchange(service.url, [`GET /v1/signals?per_page=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n${smuggled}`], 2);
  t.same(
    once.answers.map((a) => a.status),
    [200, 200],
    'headers sent once: both pipelined requests answered',
  );
});

/** A gap-analysis body over the size that sends it to the worker pool. */
function pooledAnalysisBody(findings = 300): string {
  const ids = testRegistry().signalIds();
  const body = JSON.stringify({ frameworks: ['HIPAA'], findings: Array.from({ length: findings }, (_, i) => finding(`p-${i}`, ids[(i * 7) % ids.length])) });
  if (body.length <= 16 * 1024) throw new Error('the body must be over the inline size');
  return body;
}

t.test('a request pipelined behind one that goes to the worker pool gets its answer, and so does the one ahead', async (t) => {
  const pool = service.services.pool;
  const run = pool.run;
  let started!: () => void;
  const taskStarted = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  const answerHeld = new Promise<void>((resolve) => (release = resolve));
  // The pool's answer is held until the request behind has reached the server.
  pool.run = (async (...args: Parameters<typeof run>) => {
    started();
    const result = await run.apply(pool, args);
    await answerHeld;
    return result;
  }) as typeof run;
  t.teardown(() => {
    pool.run = run;
  });
  const body = pooledAnalysisBody();
  const ahead = `POST /v1/gap-analysis HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const behind = `GET /v1/signals?per_page=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
  const result = exchange(service.url, [ahead, behind], 2, {
    between: async () => {
      await taskStarted;
    },
  });
  await taskStarted;
  // Two round trips on other connections: by their end the server has had turns to read what
  // was sent behind the pooled request (and, unfixed, closed the connection over it).
  for (let i = 0; i < 2; i++) t.equal((await call(service, 'GET', '/healthz')).status, 200);
  release();
  const { answers, closed } = await result;
  t.notOk(closed, 'the connection stays open');
  t.same(
    answers.map((a) => a.status),
    [200, 200],
  );
  t.ok(JSON.parse(answers[0].text).data.id, 'the analysis, first');
  t.equal(JSON.parse(answers[1].text).data.length, 1, 'then the signal page');
});

/** A Prowler CSV of a few failing results, as the tool writes it. */
function prowlerCsv(buckets: number): string {
  const lines = ['CHECK_ID;STATUS;SEVERITY;RESOURCE_UID;RESOURCE_TYPE;PROVIDER;TIMESTAMP'];
  for (let i = 0; i < buckets; i++) lines.push(`s3_bucket_default_encryption;FAIL;medium;arn:aws:s3:::bucket-${i};AwsS3Bucket;aws;2026-11-20 08:15:00`);
  return `${lines.join('\n')}\n`;
}

t.test('Idempotency-Key on the import covers its query: other frameworks, format or options under the key are 422', async (t) => {
  const csv = prowlerCsv(3);
  const post = (query: string, idempotencyKey: string, body = csv) =>
    call(service, 'POST', `/v1/gap-analysis/import?${query}`, {
      key,
      rawBody: body,
      headers: { 'content-type': 'text/csv', 'idempotency-key': idempotencyKey },
    });
  const first = await post('format=prowler-csv&frameworks=HIPAA', 'import-1');
  t.equal(first.status, 200, first.text.slice(0, 200));
  const again = await post('frameworks=HIPAA&format=prowler-csv', 'import-1');
  t.equal(again.status, 200, 'the same request, its parameters in another order: a replay');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(again.body.data.id, first.body.data.id);
  t.equal((await post('format=prowler-csv&frameworks=HIPAA&variant=a', 'import-1')).status, 200, 'variant shapes the answer only');
  for (const [query, what] of [
    ['format=prowler-csv&frameworks=SOC2', 'other frameworks'],
    ['format=prowler-csv&frameworks=HIPAA,SOC2', 'more frameworks'],
    ['format=auto&frameworks=HIPAA', 'another format'],
    ['format=prowler-csv&frameworks=HIPAA&include_resolved=false', 'another option'],
  ]) {
    const res = await post(query, 'import-1');
    t.equal(res.status, 422, what);
    t.equal(res.body.error.code, 'idempotency_key_reused', what);
    t.equal(res.body.error.details.operation, 'POST /v1/gap-analysis/import', what);
  }
  const otherBody = await post('format=prowler-csv&frameworks=HIPAA', 'import-1', prowlerCsv(4));
  t.equal(otherBody.status, 422, 'another file');
  // One key, two operations: a key used on the create is not a replay on the import.
  const created = await call(service, 'POST', '/v1/gap-analysis', {
    key,
    rawBody: csv,
    headers: { 'content-type': 'application/json', 'idempotency-key': 'import-2' },
  });
  t.equal(created.status, 400, 'not an analysis body: nothing stored');
  t.equal((await post('format=prowler-csv&frameworks=HIPAA', 'import-2')).status, 200);
  const create = await call(service, 'POST', '/v1/gap-analysis', {
    key,
    body: { frameworks: ['HIPAA'], findings: [] },
    headers: { 'idempotency-key': 'import-2' },
  });
  t.equal(create.status, 422, 'the key of an import is not the key of a create');
  t.equal(create.body.error.details.operation, 'POST /v1/gap-analysis/import');
});

t.test('every list an answer carries is bounded, with its total', async (t) => {
  // 3,000 distinct checks the registry does not know, and 30 status words that make no finding.
  const lines = ['CHECK_ID;STATUS;SEVERITY;RESOURCE_UID;RESOURCE_TYPE;PROVIDER;TIMESTAMP'];
  for (let i = 0; i < 3000; i++) lines.push(`unknown_check_${i};FAIL;low;arn:aws:s3:::b;AwsS3Bucket;aws;2026-11-20 08:15:00`);
  for (let i = 0; i < 30; i++) lines.push(`s3_bucket_default_encryption;WORD${i};low;arn:aws:s3:::b${i};AwsS3Bucket;aws;2026-11-20 08:15:00`);
  const csv = `${lines.join('\n')}\n`;
  const headers = { 'content-type': 'text/csv' };
  const analysis = await call(service, 'POST', '/v1/gap-analysis/import?format=prowler-csv&frameworks=HIPAA', { key, rawBody: csv, headers });
  t.equal(analysis.status, 200, analysis.text.slice(0, 200));
  const imported = analysis.body.meta.import;
  t.equal(imported.unmapped.length, 100, 'the first 100 unrecognised rules');
  t.equal(imported.summary.unmapped_rules, 3000, 'all counted');
  t.equal(imported.summary.unmapped, 3000);
  t.equal(imported.not_recognised.more, 2980, 'the "not recognised" line counts the rules it does not name');
  t.equal(Object.keys(imported.summary.other_statuses).length, 21, '20 status words named, the rest together');
  t.equal(imported.summary.other_statuses['(other status words)'], 10);
  t.ok(analysis.text.length < 200_000, `the answer stays small (${analysis.text.length} bytes)`);

  const findings = await call(service, 'POST', '/v1/findings/import?format=prowler-csv', { key, rawBody: csv, headers });
  t.equal(findings.status, 200);
  t.equal(findings.body.data.unmapped.length, 100);
  t.equal(findings.body.data.summary.unmapped_rules, 3000);

  // An object that breaks one rule 20,000 times: 50 errors listed, all counted.
  const signal = { id: 'CSR-X-001', tags: Array.from({ length: 20_000 }, () => 5) };
  const validated = await call(service, 'POST', '/v1/validate', { key, body: { schema: 'signal', data: signal } });
  t.equal(validated.status, 200);
  t.equal(validated.body.data.errors.length, 50);
  t.ok(validated.body.data.errors_total > 20_000, 'errors_total counts them all');
  const batch = await call(service, 'POST', '/v1/validate/batch', { key, body: { schema: 'signal', items: [signal, signal] } });
  t.same(
    batch.body.data.results.map((r: { errors: unknown[] }) => r.errors.length),
    [50, 50],
  );
});

t.test('a findings import lists at most the findings one analysis takes, and counts them all', async (t) => {
  const lines = ['CHECK_ID;STATUS;SEVERITY;RESOURCE_UID;RESOURCE_TYPE;PROVIDER;TIMESTAMP'];
  for (let i = 0; i < 10_050; i++) lines.push(`s3_bucket_default_encryption;FAIL;low;arn:aws:s3:::bucket-${i};AwsS3Bucket;aws;2026-11-20 08:15:00`);
  const res = await call(service, 'POST', '/v1/findings/import?format=prowler-csv', {
    key,
    rawBody: `${lines.join('\n')}\n`,
    headers: { 'content-type': 'text/csv' },
  });
  t.equal(res.status, 200, res.text.slice(0, 200));
  t.equal(res.body.data.findings.length, 10_000);
  t.equal(res.body.data.summary.findings, 10_050);
});

t.test("one account's exports do not hold another account's pooled work behind them all", async (t) => {
  const { mixedFindings } = await import('../export/fixture.js');
  const heavy = await service.key('enterprise');
  const other = await service.key('enterprise');
  const frameworks = ['HIPAA', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF'];
  const analysisOf = async (key: string, body: unknown) => (await call(service, 'POST', '/v1/gap-analysis', { key, body })).body.data.id as string;
  const heavyId = await analysisOf(heavy, { frameworks, findings: mixedFindings(frameworks), options: { include_evidence_requirements: true } });
  const otherId = await analysisOf(other, { frameworks: ['HIPAA'], findings: mixedFindings(['HIPAA']) });
  const finished: string[] = [];
  const pdf = (key: string, id: string, name: string) =>
    call(service, 'POST', `/v1/gap-analysis/${id}/export`, { key, body: { format: 'pdf', options: { include_evidence: true } } }).then((res) => {
      t.equal(res.status, 200, name);
      finished.push(name);
    });
  const { pool } = service.services;
  // One thread (WORKERS=1): the first export runs, three wait for it.
  const heavyRuns = [1, 2, 3, 4].map((n) => pdf(heavy, heavyId, `heavy-${n}`));
  const { until } = await import('../helpers/wait.js');
  await until(() => pool.queueSize === 3, 'three of the exports wait for the thread');
  const otherRun = pdf(other, otherId, 'other');
  await until(() => pool.queueSize === 4 || finished.length > 0, 'the other account waits too');
  await Promise.all([...heavyRuns, otherRun]);
  t.ok(finished.indexOf('other') < finished.indexOf('heavy-3'), `the other account's export is served once a thread is free: ${finished.join(', ')}`);
});

t.test('a pdf lays out a bounded length of each text: unbreakable 100 KB tool names take no longer than short ones', async (t) => {
  const { pdfToText } = await import('../export/read-back.js');
  const ids = testRegistry().signalIds();
  // Twelve tools, three of them 100 KB without a space.
  const findings = Array.from({ length: 12 }, (_, i) =>
    finding(`tool-${i}`, ids[i * 5], 'open', { source: { tool: i < 3 ? `${'x'.repeat(100_000)}${i}` : `tool-${i}` } }),
  );
  const created = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings } });
  t.equal(created.status, 200);
  const started = Date.now();
  const response = await fetch(`${service.url}/v1/gap-analysis/${created.body.data.id}/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'pdf' }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  t.equal(response.status, 200, `answered in ${Date.now() - started} ms`);
  const text = (await pdfToText(bytes)).replace(/\s+/g, ' ');
  t.match(
    text,
    /Sources tool-10, tool-11, tool-3, tool-4, tool-5, tool-6, tool-7, tool-8, tool-9, x[x ]{100,130}… and 2 more/,
    'ten tools named, each cut short, the rest counted',
  );
});

t.test('anything shaped like an API key is redacted in every log line: path, X-Request-Id, percent-encoded', async (t) => {
  const { Writable } = await import('node:stream');
  const { pino } = await import('pino');
  const { redactKeys } = await import('../../src/log.js');
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const logged = await startTestService({ log: pino({ level: 'info', base: { service: 'csr' } }, sink) });
  const own = await logged.key('pro', 'leaky-client');
  const [, keyId, secret] = /^csr_([0-9a-f]{16})_(.+)$/.exec(own)!;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${logged.url}${path}`, { headers: { authorization: `Bearer ${own}`, ...headers } }).then((r) => r.arrayBuffer());
  await get(`/v1/signals/${own}`);
  await get(`/v1/signals/${encodeURIComponent(own).replace(/_/g, '%5F')}`);
  await get('/v1/signals?per_page=1', { 'x-request-id': own });
  await logged.close();
  const accessLines = text.split('\n').filter((line) => line.includes('"log":"access"'));
  t.equal(accessLines.length, 3, 'three access lines');
  t.notOk(text.includes(secret), 'no line holds the secret');
  t.equal(accessLines.filter((line) => line.includes(`csr_${keyId}_[redacted]`)).length, 3, 'each names the key id, the secret redacted');
  t.equal(redactKeys(`a csr_${keyId}_${secret} b`), `a csr_${keyId}_[redacted] b`);
  t.equal(redactKeys('"service":"csr","path":"/v1/signals/CSR-HIPAA-AUDIT-LOG-001"'), '"service":"csr","path":"/v1/signals/CSR-HIPAA-AUDIT-LOG-001"');
});

t.test('a JSON body that is not valid UTF-8 is refused 400 invalid_json, on the HTTP thread and on the analysis path', async (t) => {
  const latin1 = Buffer.concat([Buffer.from('{"signal_ids": ["caf'), Buffer.from([0xe9]), Buffer.from('"]}')]);
  const headers = { 'content-type': 'application/json' };
  const bulk = await call(service, 'POST', '/v1/mappings/bulk', { key, rawBody: latin1, headers });
  t.equal(bulk.status, 400);
  t.equal(bulk.body.error.code, 'invalid_json');
  t.equal(bulk.body.error.details.offset, 20, 'the byte named');
  t.match(bulk.body.error.message, /not valid UTF-8/);
  const [{ signal_id }] = [{ signal_id: testRegistry().signalIds()[0] }];
  const analysis = Buffer.concat([
    Buffer.from(`{"frameworks": ["HIPAA"], "findings": [{"id": "f`),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from(`", "signal_id": "${signal_id}"}]}`),
  ]);
  const created = await call(service, 'POST', '/v1/gap-analysis', { key, rawBody: analysis, headers });
  t.equal(created.status, 400, 'an encoded surrogate is not UTF-8 either');
  t.equal(created.body.error.code, 'invalid_json');
  const valid = await call(service, 'POST', '/v1/mappings/bulk', { key, body: { signal_ids: ['café ✓ 𝄞'] } });
  t.equal(valid.status, 200, 'multi-byte UTF-8 is fine');
});

t.test('xlsx and csv cells that start with a control character or an invisible one before a formula sign are neutralised', async (t) => {
  const { readWorkbook, parseCsv } = await import('../export/read-back.js');
  const { primarySignals } = await import('../helpers/findings.js');
  const prefixes = ['\v', '\f', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u200e', '\u202e', '\u0000'];
  const signals = primarySignals('HIPAA', prefixes.length);
  const ids = prefixes.map((prefix, i) => `${prefix}=1+${i}`);
  const findings = ids.map((id, i) => finding(id, signals[i].signal_id, 'open'));
  const created = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings } });
  t.equal(created.status, 200, created.text.slice(0, 200));
  const exported = async (format: string) => {
    const response = await fetch(`${service.url}/v1/gap-analysis/${created.body.data.id}/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ format }),
    });
    t.equal(response.status, 200, format);
    return Buffer.from(await response.arrayBuffer());
  };
  // No cell starts with a control or invisible character, or a formula sign: each such is quoted.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters at the start are what this looks for.
  const hostileStart = /^[\x00-\x1f\x7f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff=+\-@]/;
  const workbook = await readWorkbook(await exported('xlsx'));
  const cells: string[] = [];
  workbook.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((c) => void (typeof c.value === 'string' && cells.push(c.value)))));
  const rows = await parseCsv((await exported('csv')).toString('utf8'));
  for (const [format, all] of [
    ['xlsx', cells],
    ['csv', rows.flat()],
  ] as const) {
    t.same(
      all.filter((c) => hostileStart.test(c)),
      [],
      `${format}: no cell starts with a character that hides a formula`,
    );
    const quoted = all.filter((c) => c.startsWith("'") && ids.some((id) => c.includes(id.slice(1))));
    t.ok(quoted.length >= ids.length - 1, `${format}: the ids are there, quoted (${quoted.length})`);
  }
});

t.test('an unknown query parameter is refused, naming it and what to send instead', async (t) => {
  const search = await call(service, 'GET', '/v1/signals?q=encryption', { key });
  t.equal(search.status, 400);
  t.equal(search.body.error.details.parameter, 'q');
  t.match(search.body.error.message, /GET \/v1\/search\?q=/, 'q points at /v1/search');
  const size = await call(service, 'GET', '/v1/signals?pagesize=5', { key });
  t.equal(size.body.error.details.parameter, 'pagesize');
  t.match(size.body.error.details.reason, /per_page/);
  t.ok(size.body.error.details.accepted.includes('per_page'), 'the parameters it takes are listed');
  const typo = await call(service, 'GET', '/v1/signals?Per_Page=5', { key });
  t.match(typo.body.error.details.reason, /did you mean per_page/);
  const none = await call(service, 'GET', `/v1/signals/${testRegistry().signalIds()[0]}?expand=all`, { key });
  t.equal(none.status, 400, 'a route that takes no parameters refuses one too');
  t.match(none.body.error.details.reason, /takes none/);
  t.equal((await call(service, 'GET', '/v1/search?q=encryption', { key })).status, 200);
  t.equal((await call(service, 'GET', '/healthz?probe=1')).status, 200, 'the probes take anything');
});

t.test('gap analysis: listing-only frameworks, scanner files and bare findings are answered with what to send', async (t) => {
  const listed = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['NIS2', 'nist-800-53', 'NOPE'], findings: [] } });
  t.equal(listed.status, 400);
  t.equal(listed.body.error.code, 'GAP_FRAMEWORK_NOT_FOUND');
  t.same(listed.body.error.details.listed_for_lookup, ['NIS2', 'nist-800-53']);
  t.match(listed.body.error.message, /NIS2, nist-800-53 are listed for lookup only/);
  t.match(listed.body.error.message, /Unknown framework code\(s\): NOPE/);
  t.match(listed.body.error.message, /Gap analysis supports HIPAA, /);
  const frameworks = await call(service, 'GET', '/v1/frameworks', { key });
  const nis2 = frameworks.body.data.find((f: { code: string }) => f.code === 'NIS2');
  t.equal(nis2.gap_analysis, false, 'the listing marks it');

  // A SARIF file, as a scanner wrote it, posted to the create route.
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'CodeQL', rules: [] } },
        results: Array.from({ length: 50 }, (_, i) => ({ ruleId: `js/rule-${i}`, message: { text: 'x'.repeat(100) } })),
      },
    ],
  };
  const scanner = await call(service, 'POST', '/v1/gap-analysis', { key, body: sarif });
  t.equal(scanner.status, 400);
  t.equal(scanner.body.error.details.parameter, '(body)');
  t.match(scanner.body.error.message, /\/v1\/gap-analysis\/import/, 'points at the import');
  t.ok(scanner.text.length < 1000, `the body is not echoed (${scanner.text.length} bytes)`);
  t.notOk(scanner.text.includes('CodeQL'));
  const bare = await call(service, 'POST', '/v1/gap-analysis', { key, body: [finding('f1', testRegistry().signalIds()[0])] });
  t.equal(bare.status, 400);
  t.match(bare.body.error.message, /wrap it in \{"frameworks": \[\.\.\.\], "findings"/);
  const nested = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings: { a: 'x'.repeat(5000) } } });
  t.equal(nested.body.error.details.value, '(an object with 1 field)', 'an object at fault is described, not echoed');
});

t.test('auth mistakes are told apart, with WWW-Authenticate', async (t) => {
  const cases: Array<[Record<string, string>, string, RegExp, string]> = [
    [{}, 'missing', /An API key is required/, 'Bearer realm="csr"'],
    [{ 'x-api-key': key }, 'wrong_header', /X-API-Key header is not read/, 'Bearer realm="csr", error="invalid_request"'],
    [{ authorization: key }, 'wrong_scheme', /Put "Bearer " before the key/, 'Bearer realm="csr", error="invalid_request"'],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, 'wrong_scheme', /must use the Bearer scheme/, 'Bearer realm="csr", error="invalid_request"'],
    [{ authorization: 'Bearer not-a-key' }, 'not_a_key', /not an API key of this service/, 'Bearer realm="csr", error="invalid_token"'],
    [
      { authorization: `Bearer csr_0123456789abcdef_${'A'.repeat(43)}` },
      'unknown_or_revoked',
      /unknown or has been revoked/,
      'Bearer realm="csr", error="invalid_token"',
    ],
  ];
  for (const [headers, problem, message, challenge] of cases) {
    const res = await call(service, 'GET', '/v1/signals', { headers });
    t.equal(res.status, 401, problem);
    t.equal(res.body.error.details.problem, problem);
    t.match(res.body.error.message, message, problem);
    t.equal(res.headers.get('www-authenticate'), challenge, problem);
  }
});

t.test('signal ids resolve in any case', async (t) => {
  const id = testRegistry().signalIds()[3];
  const lower = await call(service, 'GET', `/v1/signals/${id.toLowerCase()}`, { key });
  t.equal(lower.status, 200);
  t.equal(lower.body.data.id, id);
  const mappings = await call(service, 'GET', `/v1/signals/${id.toLowerCase()}/mappings`, { key });
  t.equal(mappings.body.data.signal_id, id);
  const bulk = await call(service, 'POST', '/v1/signals/bulk', { key, body: { ids: [id.toLowerCase()] } });
  t.equal(bulk.body.data.results[0].status, 'found');
});

t.test('csr --help and csr analyze --help print the usage and exit 0', async (t) => {
  const { spawnSync } = await import('node:child_process');
  const { join } = await import('node:path');
  const { projectRoot } = await import('../../src/paths.js');
  const csr = (...args: string[]) => spawnSync(process.execPath, [join(projectRoot, 'bin', 'csr.js'), ...args], { encoding: 'utf8' });
  const all = csr('--help');
  t.equal(all.status, 0);
  t.match(all.stdout, /csr keys create/);
  t.match(all.stdout, /csr analyze FILE/);
  const analyze = csr('analyze', '--help');
  t.equal(analyze.status, 0, analyze.stderr);
  t.match(analyze.stdout, /csr analyze FILE\|- \[--frameworks A,B\]/);
  t.notMatch(analyze.stdout, /csr keys create/, 'only the command asked about');
  t.equal(csr('help', 'keys').status, 0);
});

t.test('access lines carry the error code, the client address and the user agent', async (t) => {
  const { Writable } = await import('node:stream');
  const { pino } = await import('pino');
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const logged = await startTestService({ log: pino({ level: 'info', base: { service: 'csr' } }, sink) });
  const own = await logged.key('pro', 'agent-logger');
  const get = (path: string, headers: Record<string, string>) =>
    fetch(`${logged.url}${path}`, { headers: { 'user-agent': 'acme-scanner/2.1', ...headers } }).then((r) => r.arrayBuffer());
  await get('/v1/signals?per_page=1', { authorization: `Bearer ${own}` });
  await get('/v1/signals/NO-SUCH-SIGNAL', { authorization: `Bearer ${own}` });
  await get('/v1/signals', {});
  await logged.close();
  const lines = text
    .split('\n')
    .filter((line) => line.includes('"log":"access"'))
    .map((line) => JSON.parse(line));
  t.match(lines, [
    { status: 200, user_agent: 'acme-scanner/2.1', account: 'agent-logger' },
    { status: 404, error: 'not_found', client: '127.0.0.1', user_agent: 'acme-scanner/2.1' },
    { status: 401, error: 'unauthorized', client: '127.0.0.1' },
  ]);
  t.notOk('error' in lines[0], 'no error code on a success');
});

t.test('GAP_SIGNAL_NOT_FOUND names the first 100 unknown ids and counts them all', async (t) => {
  const findings = Array.from({ length: 300 }, (_, i) => finding(`u-${i}`, `CSR-GEN-ACCESS-NOSUCH-${String(i).padStart(3, '0')}`));
  const res = await call(service, 'POST', '/v1/gap-analysis', { key, body: { frameworks: ['HIPAA'], findings } });
  t.equal(res.body.error.code, 'GAP_SIGNAL_NOT_FOUND');
  t.equal(res.body.error.details.signal_ids.length, 100);
  t.equal(res.body.error.details.count, 300);
  t.match(res.body.error.message, / and 200 more$/);
});

t.test('a HEAD answer leaves its keep-alive connection usable: the request after it is answered', async (t) => {
  const head = `HEAD /v1/frameworks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
  const get = `GET /v1/signals?per_page=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
  let headAnswered!: () => void;
  const answeredHead = new Promise<void>((resolve) => (headAnswered = resolve));
  // The service's report of the HEAD's answer: the GET goes after it, as a keep-alive client's next request, not a pipelined one.
  const answered = service.pipeline.answered.bind(service.pipeline);
  service.pipeline.answered = (request, status, bytes, seconds) => {
    if (request.method === 'HEAD') headAnswered();
    answered(request, status, bytes, seconds);
  };
  t.teardown(() => void (service.pipeline.answered = answered));
  const result = exchange(service.url, [head, get], 2, { headRequests: new Set([0]), between: () => answeredHead });
  const { answers, closed } = await result;
  t.notOk(closed, 'the connection stays open');
  t.same(
    answers.map((a) => a.status),
    [200, 200],
  );
  t.ok(Number(answers[0].headers['content-length']) > 0, 'the HEAD answer says the length GET would send');
  t.equal(answers[0].body.length, 0);
});
