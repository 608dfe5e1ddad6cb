/**
 * A client generated from the OpenAPI document by a common generator (openapi-typescript) must
 * be usable as is: a small program calling five operations type-checks in strict mode without a
 * cast (a field of the wrong type is a compile error, so the results are not `unknown` or `any`),
 * then runs against a live service.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { routes } from '../../src/api/routes.js';
import { buildOpenApiDocument } from '../../src/api/openapi.js';
import { projectRoot } from '../../src/paths.js';
import { primarySignals } from '../helpers/findings.js';
import { startTestService } from '../helpers/service.js';

// Loading the compiler, type-checking and a live run: on a loaded 2-core machine that can take longer
// than tap's default file timeout, which is about load, not about what is checked.
t.setTimeout(300_000);

/** What an integrator would write: typed GET/POST helpers over the generated `paths`, then five calls. */
const PROGRAM = `import type { paths } from './api.js';

type JsonOf<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;
type Ok<P extends keyof paths, M extends 'get' | 'post'> = paths[P][M] extends { responses: { 200: infer R } } ? JsonOf<R> : never;
type BodyOf<P extends keyof paths> = paths[P]['post'] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

const base = process.env.CSR_URL ?? 'http://127.0.0.1:8080';
const headers = { authorization: \`Bearer \${process.env.CSR_KEY ?? ''}\`, 'content-type': 'application/json' };

async function get<P extends keyof paths>(template: P, path: string = template): Promise<Ok<P, 'get'>> {
  const res = await fetch(base + path, { headers });
  if (!res.ok) throw new Error(\`GET \${path}: \${res.status} \${await res.text()}\`);
  return res.json();
}

async function post<P extends keyof paths>(template: P, body: BodyOf<P>, path: string = template): Promise<Ok<P, 'post'>> {
  const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(\`POST \${path}: \${res.status} \${await res.text()}\`);
  return res.json();
}

const signalId = process.env.CSR_SIGNAL ?? '';
const signal = await get('/v1/signals/{id}', \`/v1/signals/\${signalId}\`);
const title: string = signal.data.title;

const created = await post('/v1/gap-analysis', { frameworks: ['HIPAA'], findings: [{ id: 'f-1', signal_id: signalId, status: 'open' }] });
const score: number | null = created.data.summary.posture_score;
const hipaaGaps: number = created.data.by_framework['HIPAA'].gaps.length;
const firstGapStatus: 'compliant' | 'partially_compliant' | 'non_compliant' | undefined = created.data.frameworks[0].gaps[0]?.status;
const registryVersion: string | undefined = created.meta?.registry_version;

const again = await get('/v1/gap-analysis/{id}', \`/v1/gap-analysis/\${created.data.id}\`);
const list = await get('/v1/gap-analysis/summary');
const direction: 'improving' | 'declining' | 'stable' | 'insufficient_data' = list.data.trend.direction;
const comparison = await post('/v1/gap-analysis/compare', { baseline_id: created.data.id, current_id: again.data.id });
const change: number | null = comparison.data.summary.score_change;

// @ts-expect-error a posture score is a number or null, never a string: the types are real
const wrong: string = created.data.summary.posture_score;

console.log(JSON.stringify({ title, score, hipaaGaps, firstGapStatus, registryVersion, analyses: list.data.analyses.length, direction, change, wrong }));
`;

t.test('a client generated with openapi-typescript types five operations without casts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'csr-client-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // As a client sees it: the JSON text of /v1/openapi.json.
  const document = JSON.parse(JSON.stringify(buildOpenApiDocument(routes, { version: '1.0.0' })));
  const generated = astToString(await openapiTS(document));
  t.match(generated, /"\/v1\/gap-analysis": \{/, 'the generator produced the paths');
  writeFileSync(join(dir, 'api.d.ts'), generated);
  writeFileSync(join(dir, 'program.ts'), PROGRAM);
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');

  const program = ts.createProgram([join(dir, 'program.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    // The generated client and the program are what is checked, not @types/node's own files.
    skipLibCheck: true,
    typeRoots: [join(projectRoot, 'node_modules', '@types')],
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  t.same(diagnostics, [], 'the program type-checks (strict, no casts; the @ts-expect-error line is an error as it should be)');
  t.notMatch(PROGRAM, / as [A-Za-z{[]/, 'the program has no type assertion');

  // And it does what it says against a live service.
  const service = await startTestService();
  t.teardown(() => service.close());
  const key = await service.key('teams');
  const javascript = ts.transpileModule(PROGRAM, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 } }).outputText;
  writeFileSync(join(dir, 'program.js'), javascript);
  // Asynchronously: the service answers from this process's event loop.
  const run = await promisify(execFile)(process.execPath, [join(dir, 'program.js')], {
    env: { ...process.env, CSR_URL: service.url, CSR_KEY: key, CSR_SIGNAL: primarySignals('HIPAA', 1)[0].signal_id },
    encoding: 'utf8',
    timeout: 60_000,
  }).then(
    ({ stdout }) => ({ ok: true, stdout, stderr: '' }),
    (error: { stdout?: string; stderr?: string; message: string }) => ({ ok: false, stdout: error.stdout ?? '', stderr: error.stderr || error.message }),
  );
  t.ok(run.ok, `the program ran${run.ok ? '' : `: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`}`);
  const output = JSON.parse(run.stdout.trim() || '{}');
  t.type(output.title, 'string', 'the signal title');
  t.ok(output.hipaaGaps >= 1, 'the open finding made a HIPAA gap');
  t.equal(output.analyses, 1, 'the list holds the analysis');
  t.equal(output.change, 0, 'an analysis compared with itself has not changed');
});
