/**
 * Custom frameworks of our own for the tests: a small JSON-form framework tied to real registry
 * signals and controls, an OSCAL catalog in the shape of NIST's, and spreadsheets.
 */
import { testRegistry, primarySignals } from '../helpers/findings.js';

export interface SampleFramework {
  body: Record<string, any>;
  /** Signals the sample's controls use: direct on AC-1, inherited (equal) on AC-2, (intersects_with) on AC-3. */
  direct: { signal_id: string; control_id: string };
  equal: { signal_id: string; control_id: string };
  intersects: { signal_id: string; control_id: string };
}

/**
 * Four controls: AC-1 with a direct signal (primary 0.9), AC-2 equal to a HIPAA control, AC-3
 * intersecting another HIPAA control, AC-4 with no evidence at all.
 */
export function sampleFramework(code = 'ACME-ISP', version = '2026.1'): SampleFramework {
  const [direct, equal, intersects] = primarySignals('HIPAA', 3);
  return {
    direct,
    equal,
    intersects,
    body: {
      code,
      name: 'ACME information security policy',
      version,
      description: 'Our own control set',
      controls: [
        {
          id: 'AC-1',
          title: 'Administrators use multi-factor authentication',
          description: 'Every administrative login requires a second factor.',
          category: 'Access control',
          level: 'High',
          guidance: 'Enforce MFA in the identity provider.',
          evidence: ['IdP MFA policy export'],
          signals: [{ signal_id: direct.signal_id, relationship: 'primary', confidence: 0.9, rationale: 'The signal checks exactly this' }],
        },
        {
          id: 'AC-2',
          title: 'Same as a HIPAA safeguard',
          category: 'Access control',
          corresponds_to: [{ framework: 'hipaa', control_id: equal.control_id, relationship: 'equal' }],
        },
        {
          id: 'AC-3',
          title: 'Overlaps a HIPAA safeguard',
          category: 'Operations',
          corresponds_to: [{ framework: 'HIPAA', control_id: intersects.control_id, relationship: 'intersects_with' }],
        },
        { id: 'AC-4', title: 'Background checks for staff', category: 'People' },
      ],
    },
  };
}

/** Signal ids of the registry that map to something, in id order: material for large frameworks. */
export function mappedSignalIds(count: number): string[] {
  const registry = testRegistry();
  const ids: string[] = [];
  for (const id of registry.signalIds()) {
    if (registry.mappingsOfSignal(id).length) ids.push(id);
    if (ids.length === count) break;
  }
  return ids;
}

const FAMILIES = [
  ['ac', 'Access Control'],
  ['au', 'Audit and Accountability'],
  ['cm', 'Configuration Management'],
  ['ia', 'Identification and Authentication'],
  ['sc', 'System and Communications Protection'],
  ['si', 'System and Information Integrity'],
] as const;

/**
 * An OSCAL catalog in the shape of NIST SP 800-53's: families as groups, controls with label and
 * sort-id props, parameters inserted into statement items, guidance, enhancements as nested
 * controls, and withdrawn controls. `perFamily` base controls a family, each with two enhancements.
 * Returns the catalog and the controls it should yield (withdrawn ones left out).
 */
export function oscalCatalog(perFamily: number, options: { signals?: string[]; correspondsTo?: string } = {}) {
  const expected: Array<{ id: string; title: string; category: string }> = [];
  let n = 0;
  const groups = FAMILIES.map(([family, title]) => ({
    id: family,
    class: 'family',
    title,
    controls: Array.from({ length: perFamily }, (_, i) => {
      const number = i + 1;
      const label = `${family.toUpperCase()}-${number}`;
      const withdrawn = number % 10 === 0;
      const controlTitle = `${title} control ${number}`;
      if (!withdrawn) expected.push({ id: label, title: controlTitle, category: title });
      const enhancements = [1, 2].map((e) => {
        const enhancementLabel = `${label}(${e})`;
        if (!withdrawn) expected.push({ id: enhancementLabel, title: `${controlTitle} | Enhancement ${e}`, category: title });
        return {
          id: `${family}-${number}.${e}`,
          class: 'SP800-53-enhancement',
          title: `${controlTitle} | Enhancement ${e}`,
          props: [
            { name: 'label', value: enhancementLabel },
            { name: 'sort-id', value: `${family}-${String(number).padStart(2, '0')}.${String(e).padStart(2, '0')}` },
            // NIST marks the enhancements of a withdrawn control withdrawn too.
            ...(withdrawn ? [{ name: 'status', value: 'withdrawn' }] : []),
          ],
          parts: [{ id: `${family}-${number}.${e}_smt`, name: 'statement', prose: `Strengthen ${label} with measure ${e}.` }],
        };
      });
      const signal = options.signals?.[n++ % (options.signals.length || 1)];
      return {
        id: `${family}-${number}`,
        class: 'SP800-53',
        title: controlTitle,
        params: [
          { id: `${family}-${number}_prm_1`, label: 'organization-defined personnel or roles' },
          { id: `${family}-${number}_prm_2`, select: { 'how-many': 'one-or-more', choice: ['organization-level', 'system-level'] } },
        ],
        props: [
          { name: 'label', value: label },
          { name: 'sort-id', value: `${family}-${String(number).padStart(2, '0')}` },
          ...(withdrawn ? [{ name: 'status', value: 'withdrawn' }] : []),
          ...(signal && !withdrawn ? [{ name: 'csr-signal', value: `${signal} primary 0.85` }] : []),
          ...(options.correspondsTo && !withdrawn && number === 1 ? [{ name: 'csr-corresponds-to', value: `${options.correspondsTo} equal` }] : []),
        ],
        links: [{ href: '#ref-1', rel: 'reference' }],
        parts: [
          {
            id: `${family}-${number}_smt`,
            name: 'statement',
            parts: [
              {
                id: `${family}-${number}_smt.a`,
                name: 'item',
                props: [{ name: 'label', value: 'a.' }],
                prose: `Develop a policy for {{ insert: param, ${family}-${number}_prm_1 }} at the {{ insert: param, ${family}-${number}_prm_2 }};`,
              },
              { id: `${family}-${number}_smt.b`, name: 'item', props: [{ name: 'label', value: 'b.' }], prose: 'Review the policy annually.' },
            ],
          },
          { id: `${family}-${number}_gdn`, name: 'guidance', prose: `Guidance for ${label}.` },
          {
            id: `${family}-${number}_obj`,
            name: 'assessment-objective',
            parts: [
              { id: `${family}-${number}_obj.a`, name: 'assessment-objective', prose: 'a policy is developed;' },
              { id: `${family}-${number}_obj.b`, name: 'assessment-objective', prose: 'the policy is reviewed.' },
            ],
          },
        ],
        controls: enhancements,
      };
    }),
  }));
  const catalog = {
    catalog: {
      uuid: '6b0cb2a6-3c2f-4ea8-9a4e-7d2d0b1e2f10',
      metadata: { title: 'ACME Catalog of Security Controls', 'last-modified': '2026-11-01T00:00:00Z', version: '5.1.1', 'oscal-version': '1.1.2' },
      groups,
      'back-matter': { resources: [{ uuid: 'f1b0f4b2-1111-4e5b-8c1a-9c1f2e3d4a5b', title: 'Reference' }] },
    },
  };
  return { catalog, expected };
}

/** A CSV cell. */
export function csvCell(value: string): string {
  return /[",\r\n;]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * A spreadsheet of `rows` controls as CSV (header included), each tied to a signal, some to a
 * built-in control, with quoted cells holding commas, quotes and line breaks.
 */
export function spreadsheetRows(rows: number, signals: string[], builtIn: { framework: string; control_id: string }): string[][] {
  const header = ['control_id', 'title', 'description', 'category', 'level', 'guidance', 'evidence', 'signals', 'corresponds_to'];
  const body = Array.from({ length: rows }, (_, i) => [
    `ISP-${String(i + 1).padStart(3, '0')}`,
    `Control ${i + 1}, "quoted"`,
    `Line one\nline two of ${i + 1}`,
    ['Access', 'Logging', 'Network'][i % 3],
    i % 2 ? 'Moderate' : '',
    'Do it well',
    'Policy; Screenshot',
    `${signals[i % signals.length]} ${i % 2 ? 'supporting 0.75' : ''}`.trim(),
    i % 5 === 0 ? `${builtIn.framework}:${builtIn.control_id} subset_of` : '',
  ]);
  return [header, ...body];
}

export function toCsv(rows: string[][]): string {
  return rows.map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

export async function toXlsx(rows: string[][], sheetName = 'Controls'): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(sheetName);
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
