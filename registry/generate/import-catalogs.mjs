// Maintainer tool: turns the public fact tables in ../shared/reference into our
// registry sources (ids, official titles, families, flags, crosswalk rows).
// It is run by hand when a catalog changes; the build never needs ../shared.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const reference = process.env.REFERENCE_DIR ?? join(here, '../../../shared/reference');
const sources = join(here, '../sources');

const FRAMEWORKS = {
  HIPAA: { listing_code: 'HIPAA', category: 'healthcare', gap_analysis: true, short_version: '2013 Omnibus' },
  CMMC: { listing_code: 'CMMC', category: 'government', gap_analysis: true, short_version: '2.0 Level 2' },
  SOC2: { listing_code: 'SOC2', category: 'general', gap_analysis: true, short_version: '2017 TSC (2022 points of focus)' },
  ISO27001: { listing_code: 'ISO-27001', category: 'general', gap_analysis: true, short_version: '2022' },
  PCIDSS: { listing_code: 'PCI-DSS', category: 'financial', gap_analysis: true, short_version: '4.0.1' },
  GDPR: { listing_code: 'GDPR', category: 'general', gap_analysis: true, short_version: '2016/679' },
  NISTCSF: { listing_code: 'NIST-CSF', category: 'general', gap_analysis: true, short_version: '2.0' },
  HITRUST: { listing_code: 'HITRUST', category: 'healthcare', gap_analysis: true, short_version: '11' },
  CIS: { listing_code: 'CIS', category: 'general', gap_analysis: true, short_version: '8.1' },
  FEDRAMP: { listing_code: 'FEDRAMP', category: 'government', gap_analysis: true, short_version: 'Rev5 High' },
  CCPA: { listing_code: 'CCPA', category: 'general', gap_analysis: true, short_version: '2023 (CPRA)' },
  NIST80053R5: { listing_code: 'NIST-800-53', category: 'government', gap_analysis: false, short_version: 'Rev 5.1.1' },
  NIST800171R3: { listing_code: 'NIST-800-171', category: 'government', gap_analysis: false, short_version: 'Rev 3' },
  NYDFS500: { listing_code: 'NYDFS-500', category: 'financial', gap_analysis: false, short_version: '2023 Second Amendment' },
  NIS2: { listing_code: 'NIS2', category: 'general', gap_analysis: false, short_version: '2022/2555' },
};

// Titles the reference table gets wrong, checked against the published standard. PCI DSS v4.0.1
// 8.5 is "MFA systems are configured to prevent misuse"; the table repeats the wording of 8.4.
const TITLE_CORRECTIONS = {
  PCIDSS: { '8.5': 'Multi-factor authentication (MFA) systems are configured to prevent misuse.' },
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
    controls,
  };
  writeFileSync(join(sources, 'frameworks', `${code}.yaml`), YAML.stringify(doc, { lineWidth: 0 }));
}

mkdirSync(join(sources, 'crosswalks'), { recursive: true });
const index = JSON.parse(readFileSync(join(reference, 'crosswalks', '_index.json'), 'utf8'));
for (const [file, info] of Object.entries(index)) {
  if (!file.endsWith('.json')) continue;
  const rows = JSON.parse(readFileSync(join(reference, 'crosswalks', file), 'utf8'));
  const doc = {
    framework_a: rows[0].a_framework,
    framework_b: rows[0].b_framework,
    publisher: info.publisher,
    source: info.source,
    relationship_semantics: info.relationship_semantics ?? null,
  };
  // One flow sequence per row keeps these long tables diff-friendly.
  const rowLines = rows.map((r) => `  - ${JSON.stringify([r.a_control, r.b_control, r.relationship])}`);
  writeFileSync(join(sources, 'crosswalks', file.replace(/\.json$/, '.yaml')), `${YAML.stringify(doc, { lineWidth: 0 })}rows:\n${rowLines.join('\n')}\n`);
}
console.log('catalogs and crosswalks written to', sources);
