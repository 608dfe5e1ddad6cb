/**
 * One schema for a finding: on any generated finding, /v1/validate (validateObject 'finding') and
 * the create route's checks (validateAnalysisBody) give the same verdict. The registry lookup that
 * only the create route makes (an unknown but well-formed signal id) is held equal here by a
 * registry that knows every id.
 */
import t from 'tap';
import fc from 'fast-check';
import { ApiError } from '../../src/core/errors.js';
import { validateAnalysisBody, type RequestRegistry } from '../../src/gap/request.js';
import { validateObject } from '../../src/validation/validator.js';

const everySignalKnown: RequestRegistry = {
  resolveFrameworkCode: (code) => code,
  gapFrameworkCodes: () => ['HIPAA'],
  signal: () => ({}),
};

const text = (max: number) => fc.oneof(fc.string({ maxLength: 8 }), fc.string({ minLength: max - 2, maxLength: max + 2 }));
const signalId = fc.oneof(
  fc.constantFrom('CSR-HIPAA-CRYPTO-AT-REST-001', 'CSR-GEN-NET-SSH-OPEN-1234', 'csr-hipaa-crypto-at-rest-001', 'not-a-signal', '', 'CSR-GEN-NET-X-12345'),
  fc.string({ maxLength: 20 }),
);
const finding = fc.record(
  {
    id: fc.oneof(text(256), fc.integer()),
    signal_id: signalId,
    status: fc.constantFrom('open', 'in_progress', 'accepted', 'resolved', 'false_positive', 'closed', 7),
    observed_at: fc.constantFrom('2026-11-01T10:00:00Z', 'yesterday', '2026-11-01'),
    severity: fc.oneof(
      fc.record(
        { level: fc.constantFrom('high', 'low', 'urgent'), score: fc.oneof(fc.integer({ min: -5, max: 120 }), fc.constant(undefined)) },
        { requiredKeys: ['level'] },
      ),
      fc.constant('high'),
    ),
    artifact: fc.record({ type: text(256), id: text(1024), provider: text(64) }, { requiredKeys: [] }),
    extra: fc.anything({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

function createVerdict(value: unknown): boolean {
  try {
    validateAnalysisBody({ frameworks: ['HIPAA'], findings: [value] }, 'enterprise', everySignalKnown);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'GAP_INVALID_FINDING') return false;
    throw error;
  }
}

t.test('/v1/validate and the create route agree on every generated finding', async (t) => {
  let valid = 0;
  fc.assert(
    fc.property(finding, (value) => {
      const validates = validateObject('finding', structuredClone(value)) === undefined;
      if (validates) valid++;
      return validates === createVerdict(structuredClone(value));
    }),
    { numRuns: 2000, seed: 20261128 },
  );
  t.ok(valid >= 5, `the generator reaches valid findings too (${valid})`);
});

t.test('the two cases that once disagreed', async (t) => {
  const longArtifact = { id: 'f', signal_id: 'CSR-HIPAA-CRYPTO-AT-REST-001', artifact: { id: 'x'.repeat(2000) } };
  t.notOk(validateObject('finding', longArtifact) === undefined, 'validate refuses a 2,000-character artifact.id');
  t.notOk(createVerdict(longArtifact), 'and so does create');
  const notCsr = { id: 'f', signal_id: 'not-a-signal' };
  t.same(
    validateObject('finding', notCsr)?.errors.map((e) => e.path),
    ['/signal_id'],
    'validate names the signal_id',
  );
  t.notOk(createVerdict(notCsr), 'create refuses it as well');
});
