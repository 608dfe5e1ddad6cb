import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKOV_NAME_CORRECTIONS, checkovName, looksCut } from '../../registry/generate/checkov-names.js';
import { projectRoot } from '../../src/paths.js';

const facts = JSON.parse(readFileSync(join(projectRoot, 'registry', 'facts', 'checkov.json'), 'utf8')) as {
  checks: Array<[string, string, string, string[], string]>;
};
const nameOf = new Map(facts.checks.map((row) => [row[0], row[4]]));

t.test('no Checkov name in the facts is cut short', async (t) => {
  t.same(
    facts.checks.filter((row) => looksCut(row[4])).map((row) => `${row[0]} '${row[4]}'`),
    [],
  );
  t.notOk([...nameOf.values()].includes('Ensure that'), 'no check is named "Ensure that"');
});

t.test('the facts carry every correction', async (t) => {
  for (const [id, name] of Object.entries(CHECKOV_NAME_CORRECTIONS)) t.equal(nameOf.get(id), name, id);
  t.equal(nameOf.get('CKV_AZURE_18'), "Ensure that 'HTTP Version' is the latest if used to run the web app");
});

t.test('the cut guard and the correction rule', async (t) => {
  for (const cut of [
    'Ensure that ',
    'Ensure that',
    'GKE Don',
    'Ensure IAM policies that allow full \\',
    'Ensure that operation objects have ',
    'Ensure that APT isn',
  ])
    t.ok(looksCut(cut), `cut: ${cut}`);
  for (const whole of ["Ensure that APT isn't used", 'Ensure App Service is set to be always on', 'OCI IAM password policy - must contain lower case'])
    t.notOk(looksCut(whole), `whole: ${whole}`);
  t.equal(checkovName('CKV_AZURE_18', 'Ensure that '), CHECKOV_NAME_CORRECTIONS.CKV_AZURE_18, 'a fragment is completed');
  t.equal(checkovName('CKV_AWS_1', 'Ensure IAM policies that allow full \\'), CHECKOV_NAME_CORRECTIONS.CKV_AWS_1, 'a cut at an escaped quote is completed');
  t.equal(checkovName('CKV_AWS_20', 'Any name'), 'Any name', 'a check without a correction keeps its reference name');
  t.throws(() => checkovName('CKV_AZURE_18', 'Ensure storage is encrypted'), /no fragment/, 'a reference that changed is not overwritten');
});
