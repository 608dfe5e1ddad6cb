import t from 'tap';
import {
  cweFromRuleWords,
  threatSignals,
  vulnerabilitySignals,
  WEAKNESS_TABLE_CWES,
  WEAKNESS_TABLE_SIGNALS,
  weaknessSignals,
} from '../../src/ingest/weakness-signals.js';
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

t.test('vulnerabilities by kind and severity, never on the threat-detection signal', async (t) => {
  const base = ['CSR-GEN-VULN-VULN-FINDINGS-OPEN-094', 'CSR-CMMC-VULN-FLAWS-UNPATCHED-104', 'CSR-FEDRAMP-VULN-FLAW-REMEDIATION-363'];
  t.same(vulnerabilitySignals('os-package', 'critical'), [...base, 'CSR-CIS-VULN-OS-PATCHING-055', 'CSR-CIS-VULN-REMEDIATION-059']);
  t.same(vulnerabilitySignals('dependency', 'medium'), [...base, 'CSR-CIS-DEV-TRUSTED-COMPONENTS-130']);
  t.same(vulnerabilitySignals('host', 'low'), [...base, 'CSR-CIS-VULN-OS-PATCHING-055']);
  t.same(vulnerabilitySignals(null, null), base, 'an unknown kind and severity: the signals every vulnerability reaches');
  for (const kind of ['os-package', 'dependency', 'image', 'host', null] as const) {
    for (const severity of ['critical', 'high', 'medium', 'low', 'info', null] as const)
      t.notOk(
        vulnerabilitySignals(kind, severity).some((s) => threatSignals().includes(s)),
        `${kind} ${severity}`,
      );
  }
});

t.test('SAST rule words', async (t) => {
  t.equal(cweFromRuleWords('java.lang.security.audit.formatted-sql-string.formatted-sql-string'), 'CWE-89');
  t.equal(cweFromRuleWords('java.lang.security.servletresponse-writer-xss'), 'CWE-79');
  t.equal(cweFromRuleWords('java.lang.correctness.eqeq.eqeq'), null);
});
