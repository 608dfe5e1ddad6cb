// Maintainer tool: turns the public fact tables in ../shared/reference into our
// registry sources (ids, official titles, families, flags, crosswalk rows, licences).
// It is run by hand when a catalog changes; the build never needs ../shared.
// It reads the compiled TypeScript (run `npx tsc --build` first).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { outOfOrder, restoreCollapsedIds } from '../../dist/registry/generate/crosswalk-ids.js';

const here = dirname(fileURLToPath(import.meta.url));
const reference = process.env.REFERENCE_DIR ?? join(here, '../../../shared/reference');
const sources = join(here, '../sources');

// licence: the licence of the catalog's source, as ../shared/reference/frameworks/SOURCES.md
// records it; what each allows and what we serve: docs/registry-sources.md, Licences.
const US_GOVERNMENT = 'Public domain (US Government work)';
const EU_LAW = 'EU legislation: reuse authorised with acknowledgement of the source (Commission Decision 2011/833/EU)';
const FRAMEWORKS = {
  HIPAA: {
    listing_code: 'HIPAA',
    category: 'healthcare',
    gap_analysis: true,
    short_version: '2013 Omnibus',
    licence: 'Public domain (US federal regulation, 45 CFR Part 164)',
  },
  CMMC: {
    listing_code: 'CMMC',
    category: 'government',
    gap_analysis: true,
    short_version: '2.0 Level 2',
    licence:
      'CC BY 4.0 (practice titles: CMMC Assessment Guide, Carnegie Mellon University and JHU/APL); requirement numbers public domain (NIST SP 800-171 Rev 2)',
  },
  SOC2: {
    listing_code: 'SOC2',
    category: 'general',
    gap_analysis: true,
    short_version: '2017 TSC (2022 points of focus)',
    licence: 'All rights reserved (Trust Services Criteria, AICPA); no licence',
  },
  ISO27001: {
    listing_code: 'ISO-27001',
    category: 'general',
    gap_analysis: true,
    short_version: '2022',
    licence: 'All rights reserved (ISO/IEC 27001:2022, ISO and IEC); no licence',
  },
  PCIDSS: {
    listing_code: 'PCI-DSS',
    category: 'financial',
    gap_analysis: true,
    short_version: '4.0.1',
    licence: 'All rights reserved (PCI DSS v4.0.1, PCI Security Standards Council); no licence',
  },
  GDPR: { listing_code: 'GDPR', category: 'general', gap_analysis: true, short_version: '2016/679', licence: EU_LAW },
  NISTCSF: { listing_code: 'NIST-CSF', category: 'general', gap_analysis: true, short_version: '2.0', licence: `${US_GOVERNMENT}, NIST CSWP 29` },
  HITRUST: {
    listing_code: 'HITRUST',
    category: 'healthcare',
    gap_analysis: true,
    short_version: '11',
    licence: 'Proprietary (HITRUST CSF, HITRUST Alliance; licensed to subscribers); no licence',
  },
  CIS: {
    listing_code: 'CIS',
    category: 'general',
    gap_analysis: true,
    short_version: '8.1',
    licence: 'CC BY-NC-ND 4.0 (CIS Critical Security Controls v8.1, Center for Internet Security); commercial use needs CIS approval',
  },
  FEDRAMP: {
    listing_code: 'FEDRAMP',
    category: 'government',
    gap_analysis: true,
    short_version: 'Rev5 High',
    licence: `${US_GOVERNMENT}, GSA FedRAMP baselines (CC0-1.0) and NIST SP 800-53 Rev 5`,
  },
  CCPA: {
    listing_code: 'CCPA',
    category: 'general',
    gap_analysis: true,
    short_version: '2023 (CPRA)',
    licence: 'Public domain (California statute and regulations: edicts of government)',
  },
  NIST80053R5: {
    listing_code: 'NIST-800-53',
    category: 'government',
    gap_analysis: false,
    short_version: 'Rev 5.1.1',
    licence: `${US_GOVERNMENT}, NIST; OSCAL content CC0-1.0`,
  },
  NIST800171R3: {
    listing_code: 'NIST-800-171',
    category: 'government',
    gap_analysis: false,
    short_version: 'Rev 3',
    licence: `${US_GOVERNMENT}, NIST; OSCAL content CC0-1.0`,
  },
  NYDFS500: {
    listing_code: 'NYDFS-500',
    category: 'financial',
    gap_analysis: false,
    short_version: '2023 Second Amendment',
    licence: 'Public domain (New York regulation text: edicts of government)',
  },
  NIS2: { listing_code: 'NIS2', category: 'general', gap_analysis: false, short_version: '2022/2555', licence: EU_LAW },
};

// The licence of each published crosswalk. serve: false marks a mapping whose licence does not
// let a commercial service serve its rows or what follows from them (the compiler then derives
// nothing from it); docs/registry-sources.md, Licences, gives the reasons.
const INTUITEM_PACKAGING = "read from intuitem's AGPL-3.0 packaging";
const CROSSWALKS = {
  CIS__ISO27001: { licence: 'CC BY-NC-ND 4.0 (CIS mapping of CIS Controls v8 to ISO/IEC 27001:2022, Center for Internet Security)', serve: false },
  CMMC__NIST80053R4: { licence: `${US_GOVERNMENT}: NIST SP 800-171 Rev 2 Appendix D; copy in tbusillo/nist-800-171-oscal (MIT)` },
  HIPAA__NIST80053R5: { licence: `${US_GOVERNMENT}: NIST SP 800-66r2 mappings, ${INTUITEM_PACKAGING}` },
  HIPAA__NISTCSF: { licence: `${US_GOVERNMENT}: NIST SP 800-66r2 mappings, ${INTUITEM_PACKAGING}` },
  NIST80053R5__ISO27001: { licence: `${US_GOVERNMENT}: NIST OLIR SP 800-53 Rev 5 to ISO/IEC 27001:2022 mapping, ${INTUITEM_PACKAGING}` },
  NISTCSF__ISO27001: { licence: `${US_GOVERNMENT}: NIST CSF 2.0 informative references, ${INTUITEM_PACKAGING}` },
  NISTCSF__NIST80053R5: { licence: `${US_GOVERNMENT}: NIST OLIR 186 concept crosswalk; copy in degenaro/example-mapping (Apache-2.0)` },
  NISTCSF__PCIDSS: { licence: 'CC0-1.0 (NIST OLIR 183, independent submitter; Glimpz1/grc-mappings)' },
  SOC2__ISO27001: { licence: "AGPL-3.0 (intuitem's own mapping, intuitem/ciso-assistant-community)" },
};

// CIS's mapping reached the reference with safeguard ids parsed as numbers (3.10 as 3.1); its rows
// are in CIS order, which tells the two apart (registry/generate/crosswalk-ids.ts).
function restoreCisIds(file, rows, side, catalogIds) {
  const { ids, restored } = restoreCollapsedIds(
    rows.map((r) => r[`${side}_control`]),
    catalogIds,
  );
  const disorder = outOfOrder(ids);
  if (disorder.length) throw new Error(`${file}: CIS ids out of CIS order at rows ${disorder.join(', ')}; collapsed ids cannot be told apart`);
  for (const r of restored) console.log(`${file}: row ${r.row} CIS ${r.from} restored to ${r.to}`);
  return rows.map((row, i) => ({ ...row, [`${side}_control`]: ids[i] }));
}

// Titles the reference table gets wrong, checked against the published standard. PCI DSS v4.0.1
// 8.5 is "MFA systems are configured to prevent misuse"; the table repeats the wording of 8.4.
const TITLE_CORRECTIONS = {
  PCIDSS: { 8.5: 'Multi-factor authentication (MFA) systems are configured to prevent misuse.' },
};

function levelOf(code, c) {
  if (code === 'CIS') return c.level ?? null;
  if (code === 'FEDRAMP' || code === 'NIST80053R5') return c.level ?? null;
  if (code === 'HIPAA') return c.level ?? null;
  if (code === 'CMMC') return c.also_cmmc_level1_scope ? 'L1' : 'L2';
  if (code === 'SOC2') return String(c.level ?? '').startsWith('common') ? 'common' : 'additional';
  return null;
}

function flagsOf(code, c) {
  const f = {};
  if (code === 'FEDRAMP') Object.assign(f, { low: !!c.low, moderate: !!c.moderate, high: !!c.high });
  if (code === 'NIST80053R5') Object.assign(f, { low: !!c.low, moderate: !!c.moderate, high: !!c.high, privacy: !!c.privacy });
  if (code === 'CIS') Object.assign(f, { ig1: !!c.ig1, ig2: !!c.ig2, ig3: !!c.ig3 });
  if (code === 'CMMC') Object.assign(f, { nist_800_171r2: c.nist_800_171r2 });
  if (code === 'NIST800171R3') Object.assign(f, { nist_800_53r5_source: c.nist_800_53r5_source });
  if (code === 'HIPAA') Object.assign(f, { type: c.type });
  return Object.keys(f).length ? f : undefined;
}

mkdirSync(join(sources, 'frameworks'), { recursive: true });
/** Our own description of a framework survives a re-import of its catalog. */
function existingDescription(code) {
  try {
    return YAML.parse(readFileSync(join(sources, 'frameworks', `${code}.yaml`), 'utf8')).description;
  } catch {
    return undefined;
  }
}
for (const [code, meta] of Object.entries(FRAMEWORKS)) {
  const ref = JSON.parse(readFileSync(join(reference, 'frameworks', `${code}.json`), 'utf8'));
  const controls = ref.controls.map((c) => {
    const out = { id: c.id, title: TITLE_CORRECTIONS[code]?.[c.id] ?? c.title ?? null, category: c.category, level: levelOf(code, c) };
    const flags = flagsOf(code, c);
    if (flags) out.flags = flags;
    return out;
  });
  const doc = {
    code,
    listing_code: meta.listing_code,
    name: ref.name,
    version: meta.short_version,
    edition: ref.version,
    category: meta.category,
    // A new framework has none yet: the compiler then refuses the catalog until someone writes it.
    description: existingDescription(code),
    gap_analysis: meta.gap_analysis,
    source: ref.source,
    licence: meta.licence,
    controls,
  };
  writeFileSync(join(sources, 'frameworks', `${code}.yaml`), YAML.stringify(doc, { lineWidth: 0 }));
}

mkdirSync(join(sources, 'crosswalks'), { recursive: true });
const index = JSON.parse(readFileSync(join(reference, 'crosswalks', '_index.json'), 'utf8'));
for (const [file, info] of Object.entries(index)) {
  if (!file.endsWith('.json')) continue;
  const stem = file.replace(/\.json$/, '');
  const terms = CROSSWALKS[stem];
  if (!terms) throw new Error(`${file}: no licence recorded in CROSSWALKS`);
  let rows = JSON.parse(readFileSync(join(reference, 'crosswalks', file), 'utf8'));
  for (const side of ['a', 'b']) {
    if (rows[0][`${side}_framework`] !== 'CIS') continue;
    const catalog = JSON.parse(readFileSync(join(reference, 'frameworks', 'CIS.json'), 'utf8'));
    rows = restoreCisIds(file, rows, side, new Set(catalog.controls.map((c) => c.id)));
  }
  const doc = {
    framework_a: rows[0].a_framework,
    framework_b: rows[0].b_framework,
    publisher: info.publisher,
    source: info.source,
    relationship_semantics: info.relationship_semantics ?? null,
    licence: terms.licence,
    ...(terms.serve === false ? { serve: false } : {}),
  };
  // One flow sequence per row keeps these long tables diff-friendly.
  const rowLines = rows.map((r) => `  - ${JSON.stringify([r.a_control, r.b_control, r.relationship])}`);
  writeFileSync(join(sources, 'crosswalks', `${stem}.yaml`), `${YAML.stringify(doc, { lineWidth: 0 })}rows:\n${rowLines.join('\n')}\n`);
}
console.log('catalogs and crosswalks written to', sources);
