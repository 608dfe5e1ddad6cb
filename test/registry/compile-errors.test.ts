import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compileErrors, fixtureSources, tempDir } from './helpers.js';

const SIGNAL = 'signals/HIPAA-2.yaml: /signals/0';

/** Broken fixture → the one error it must produce, word for word. */
const cases: Array<[string, string]> = [
  ['bad-enum', `${SIGNAL}/severity must be one of critical, high, medium, low, info`],

  ['bad-id-format', `${SIGNAL}/id signal id 'CSR-HIPAA-IDENTITY-mfa-003' must match CSR-<DOMAIN>-<CATEGORY>-<NAME (1-4 words of A-Z0-9)>-<NNN>`],
  ['dangling-control', `${SIGNAL}/mappings/0/control control '164.399(z)' does not exist in framework HIPAA`],
  ['dangling-artifact-type', `${SIGNAL}/detection/artifact_types/0 artifact type 'identity.directory.floppy_disk' does not exist in artifact-types.yaml`],
  ['missing-primary', `${SIGNAL}/mappings signal 'CSR-HIPAA-IDENTITY-MFA-MISSING-003' has no primary mapping into its own framework HIPAA`],
  ['confidence-range', `${SIGNAL}/mappings/0/confidence must be <= 1`],
  ['unknown-provenance-rule', `${SIGNAL}/mappings/0/provenance/rules/0 rule id 'iam_user_mfa_everywhere' is not a prowler rule (rule-ids/prowler.txt)`],
  ['unknown-rule', `tool-mappings/prowler.yaml: /mappings/2/rule_id rule id 'iam_root_mfa_maybe' is not a prowler rule (rule-ids/prowler.txt)`],
  ['dangling-template', `tool-mappings/prowler.yaml: /mappings/2/template finding template 'FT-GEN-ACCESS-MFA-ENFORCED-001-009' does not exist`],
  ['bad-crosswalk-provenance', `${SIGNAL}/mappings/1/provenance/via crosswalk HIPAA__NISTCSF has no row relating '164.312(d)' to NISTCSF PR.AA-03`],
  [
    'gen-two-primaries',
    `signals/GEN.yaml: /signals/0/mappings GEN signal 'CSR-GEN-ACCESS-MFA-ENFORCED-001' needs primary mappings into at least 3 frameworks (has 2: HIPAA, NISTCSF)`,
  ],
  ['undeclared-category', `${SIGNAL}/category category ACCESS is not declared in the HIPAA domain header (categories: AUDIT, CRYPTO, IDENTITY)`],
  ['duplicate-title', `${SIGNAL}/title title is not unique: 'CSR-HIPAA-CRYPTO-DATA-AT-REST-002' has the same title`],
  ['duplicate-id', `${SIGNAL}/id duplicate signal id 'CSR-HIPAA-AUDIT-LOG-REVIEW-001' (first defined at signals/HIPAA.yaml /signals/0)`],
  [
    'duplicate-template',
    `finding-templates/HIPAA.yaml: /templates/2/id duplicate finding template id 'FT-HIPAA-AUDIT-LOG-REVIEW-001-001' (first defined at finding-templates/HIPAA.yaml /templates/0)`,
  ],
];

t.test('the valid fixture compiles', async (t) => {
  t.same(await compileErrors(fixtureSources(t), tempDir(t)), []);
});

for (const [fixture, expected] of cases) {
  t.test(`registry-${fixture} is rejected with a precise message`, async (t) => {
    const out = tempDir(t);
    t.same(await compileErrors(fixtureSources(t, fixture), out), [expected]);
    t.notOk(existsSync(join(out, 'manifest.json')), 'nothing is installed');
  });
}

t.test('a misspelt field is named, with the field it leaves missing', async (t) => {
  t.same(await compileErrors(fixtureSources(t, 'unknown-field'), tempDir(t)), [
    `${SIGNAL}/severity is required`,
    `${SIGNAL}/severty is not a known field (allowed: id, category, title, description, severity, tags, version, created, updated, effort, detection, remediation_hint, mappings)`,
  ]);
});

t.test('a YAML syntax error names the line', async (t) => {
  const errors = await compileErrors(fixtureSources(t, 'yaml-syntax'), tempDir(t));
  t.match(errors, [/^finding-templates\/GEN\.yaml: YAML error at line \d+, column \d+: /]);
  t.equal(errors.length, 1, 'references into the unreadable file are not reported again');
});

t.test('a bad artifact type id is reported, with the references it breaks', async (t) => {
  const errors = await compileErrors(fixtureSources(t, 'bad-artifact-id'), tempDir(t));
  t.ok(
    errors.includes(
      `artifact-types.yaml: /artifact_types/1/id artifact type id 'cloud.storage.object-bucket' must be <category>.<subcategory>.<name> (lower case, dot separated)`,
    ),
    errors.join('\n'),
  );
  t.ok(errors.some((e) => e.startsWith('signals/HIPAA.yaml: /signals/1/detection/artifact_types/0 ')));
});

t.test('errors of several files are all reported in one failure', async (t) => {
  const errors = await compileErrors(fixtureSources(t, 'bad-enum', 'unknown-rule', 'duplicate-template'), tempDir(t));
  t.equal(errors.length, 3, errors.join('\n'));
  t.ok(errors.some((e) => e.startsWith('signals/HIPAA-2.yaml: ')));
  t.ok(errors.some((e) => e.startsWith('tool-mappings/prowler.yaml: ')));
  t.ok(errors.some((e) => e.startsWith('finding-templates/HIPAA.yaml: ')));
});
