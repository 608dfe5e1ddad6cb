import t from 'tap';
import { cweFromRuleWords, vulnerabilitySignals, WEAKNESS_TABLE_CWES, WEAKNESS_TABLE_SIGNALS, weaknessSignals } from '../../src/ingest/weakness-signals.js';
import { testRegistry } from '../helpers/findings.js';

/** CWE Top 25, 2023 and 2024 lists together. */
const TOP_25 = [787, 79, 89, 416, 78, 20, 125, 22, 352, 434, 862, 476, 287, 190, 502, 77, 119, 798, 918, 306, 362, 269, 94, 863, 276, 200, 400];

t.test('every signal of the table exists in the compiled registry', async (t) => {
  const registry = testRegistry();
  for (const signal of WEAKNESS_TABLE_SIGNALS) t.ok(registry.signal(signal), signal);
});

t.test('the CWE Top 25 and hard-coded secrets are covered', async (t) => {
  for (const cwe of TOP_25) t.ok(WEAKNESS_TABLE_CWES.has(`CWE-${cwe}`), `CWE-${cwe}`);
  t.ok(weaknessSignals(['CWE-798']).includes('CSR-GEN-DATA-HARDCODED-SECRETS-106'));
  t.same(weaknessSignals(['CWE-1']), [], 'an uncovered CWE maps to nothing');
});

t.test('vulnerabilities by severity', async (t) => {
  t.same(vulnerabilitySignals('critical'), ['CSR-GEN-VULN-VULN-FINDINGS-OPEN-094', 'CSR-GEN-VULN-THREAT-FINDINGS-OPEN-089']);
  t.same(vulnerabilitySignals('low'), ['CSR-GEN-VULN-VULN-FINDINGS-OPEN-094']);
  t.same(vulnerabilitySignals(null), ['CSR-GEN-VULN-VULN-FINDINGS-OPEN-094']);
});

t.test('SAST rule words', async (t) => {
  t.equal(cweFromRuleWords('java.lang.security.audit.formatted-sql-string.formatted-sql-string'), 'CWE-89');
  t.equal(cweFromRuleWords('java.lang.security.servletresponse-writer-xss'), 'CWE-79');
  t.equal(cweFromRuleWords('java.lang.correctness.eqeq.eqeq'), null);
});
