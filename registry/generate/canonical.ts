/**
 * Tool requirement ids → the registry's control ids. Each tool spells requirements its own way
 * (Prowler `164_308_a_1_ii_a`, `cc_6_1`, `ac_2_1`; Azure Policy `SOC_2_CC6.1`,
 * `NIST_SP_800-53_R5_AC-2`); a claim counts only when it lands on a control of our catalog.
 */
import type { Catalogs } from './inputs.js';

export interface ControlRef {
  framework: string;
  control: string;
}

/** Prowler's nist_csf_2.0_aws file keeps CSF 1.1 subcategory ids; these are their CSF 2.0 successors (NIST's CSF 1.1 → 2.0 reference tool). */
const CSF_11_TO_20: Record<string, string> = {
  am_1: 'ID.AM-01',
  am_2: 'ID.AM-02',
  am_3: 'ID.AM-03',
  am_5: 'ID.AM-05',
  ra_1: 'ID.RA-01',
  ra_2: 'ID.RA-02',
  ra_3: 'ID.RA-03',
  ra_5: 'ID.RA-05',
  id_sc_4: 'GV.SC-07',
  ac_1: 'PR.AA-01',
  ac_3: 'PR.AA-03',
  ac_4: 'PR.AA-05',
  ac_5: 'PR.IR-01',
  ac_6: 'PR.AA-02',
  ac_7: 'PR.AA-03',
  ds_1: 'PR.DS-01',
  ds_2: 'PR.DS-02',
  ds_3: 'ID.AM-08',
  ds_4: 'PR.IR-04',
  ds_5: 'PR.DS-01',
  ds_6: 'PR.DS-01',
  ds_7: 'PR.IR-01',
  ds_8: 'ID.RA-09',
  ip_1: 'PR.PS-01',
  ip_2: 'PR.PS-06',
  ip_3: 'PR.PS-01',
  ip_4: 'PR.DS-11',
  ip_9: 'ID.IM-04',
  ip_12: 'ID.RA-01',
  pt_1: 'PR.PS-04',
  pt_3: 'PR.AA-05',
  pt_4: 'PR.IR-01',
  pt_5: 'PR.IR-03',
  ae_2: 'DE.AE-02',
  ae_3: 'DE.AE-03',
  ae_4: 'DE.AE-04',
  ae_5: 'DE.AE-08',
  cm_1: 'DE.CM-01',
  cm_2: 'DE.CM-02',
  cm_3: 'DE.CM-03',
  cm_4: 'DE.CM-09',
  cm_5: 'DE.CM-09',
  cm_6: 'DE.CM-06',
  cm_7: 'DE.CM-01',
  rp_1: 'RS.MA-01',
  rc_rp_1: 'RC.RP-01',
};

/** `ac_2_1` / `AC-2(1)` / `sc-13` → the FedRAMP (NIST SP 800-53) control, enhancement first, else its base control. */
function nist80053(catalogs: Catalogs, raw: string): string | undefined {
  const parts = raw.split(/[-_()]+/).filter(Boolean);
  if (parts.length < 2 || !/^\d+$/.test(parts[1])) return undefined;
  const base = `${parts[0].toUpperCase()}-${Number(parts[1])}`;
  if (parts.length > 2 && /^\d+$/.test(parts[2])) {
    const enhancement = `${base}(${Number(parts[2])})`;
    if (catalogs.has('FEDRAMP', enhancement)) return enhancement;
  }
  return catalogs.has('FEDRAMP', base) ? base : undefined;
}

/** HIPAA: the longest catalog id that prefixes the requirement title's citation. */
function hipaa(catalogs: Catalogs, title: string): string | undefined {
  const match = /^(164\.\d+\([a-z]\)(\(\d+\))?(\([ivx]+\))?(\([A-Z]\))?)/.exec(title);
  let id = match?.[1] ?? '';
  while (id && !catalogs.has('HIPAA', id)) id = id.endsWith(')') ? id.replace(/\([^()]*\)$/, '') : '';
  return id || undefined;
}

export function prowlerRequirement(catalogs: Catalogs, frameworkKey: string, requirement: string, title: string): ControlRef | undefined {
  const ref = (framework: string, control: string | undefined) => (control && catalogs.has(framework, control) ? { framework, control } : undefined);
  if (frameworkKey.startsWith('hipaa_')) return ref('HIPAA', hipaa(catalogs, title));
  if (frameworkKey.startsWith('soc2_')) return ref('SOC2', /^((CC|A|C|PI|P)\d+\.\d+)/.exec(title)?.[1]);
  if (frameworkKey.startsWith('iso27001_2022_')) return ref('ISO27001', requirement);
  if (frameworkKey.startsWith('pci_4.0_')) return ref('PCIDSS', /^(\d+\.\d+)/.exec(requirement)?.[1]);
  if (frameworkKey === 'gdpr_aws') {
    const article = /^article_(\d+)/.exec(requirement)?.[1];
    return ref('GDPR', article && `Art. ${article}`);
  }
  if (frameworkKey === 'nist_csf_2.0_aws') {
    const governance = /^(oc|rm|sc|rr|po|ov)_(\d+)$/.exec(requirement);
    return ref('NISTCSF', CSF_11_TO_20[requirement] ?? (governance ? `GV.${governance[1].toUpperCase()}-${governance[2].padStart(2, '0')}` : undefined));
  }
  if (frameworkKey === 'nist_800_53_revision_5_aws' || /^fedramp_(low|moderate)_revision_4_aws$/.test(frameworkKey))
    return ref('FEDRAMP', nist80053(catalogs, requirement));
  if (frameworkKey === 'cis_controls_8.1') return ref('CIS', requirement);
  if (frameworkKey === 'cmmc_2.0') return ref('CMMC', requirement);
  if (frameworkKey === 'nist_800_171_revision_2_aws') return ref('CMMC', catalogs.cmmcBy171.get(requirement.replace(/_/g, '.')));
  return undefined;
}

/** Azure Policy regulatory-compliance group names, by initiative display name. */
export function azureGroup(catalogs: Catalogs, initiative: string, group: string): ControlRef | undefined {
  const ref = (framework: string, control: string | undefined) => (control && catalogs.has(framework, control) ? { framework, control } : undefined);
  const after = (prefix: string) => (group.startsWith(prefix) ? group.slice(prefix.length) : undefined);
  switch (initiative) {
    case 'CIS Controls v8.1':
      return ref('CIS', after('CIS_Controls_v8.1_'));
    case 'CMMC 2.0 Level 2': {
      // Azure spells Level 1 practices AC.L1-3.1.1; the catalog numbers every practice L2.
      const id = after('CMMC_2.0_L2_');
      return ref('CMMC', id && catalogs.cmmcBy171.get(id.replace(/^[A-Z]+\.L\d-/, '')));
    }
    case 'EU General Data Protection Regulation (GDPR) 2016/679': {
      const article = /^Art\._(\d+)/.exec(after('EU_GDPR_2016_679_') ?? '')?.[1];
      return ref('GDPR', article && `Art. ${article}`);
    }
    case 'HITRUST CSF v11.3':
      return ref('HITRUST', after('HITRUST_CSF_v11.3_'));
    case 'HITRUST/HIPAA':
      // hipaa-0101.00a1Organizational.123-00.a: the HITRUST control reference is the suffix.
      return ref('HITRUST', /-(\d\d\.[a-z]+)$/.exec(group)?.[1]);
    case 'ISO/IEC 27001 2022': {
      const id = after('ISO_IEC_27001_2022_');
      return ref('ISO27001', id && (id.startsWith('A.') ? id : `A.${id}`));
    }
    case 'NIST CSF v2.0':
      return ref('NISTCSF', after('NIST_CSF_v2.0_')?.replace('_', '-'));
    case 'NIST SP 800-53 Rev. 5': {
      const id = after('NIST_SP_800-53_R5_');
      return ref('FEDRAMP', id && nist80053(catalogs, id));
    }
    case 'PCI DSS v4.0.1':
      return ref('PCIDSS', /^(\d+\.\d+)/.exec(after('PCI_DSS_v4.0.1_') ?? '')?.[1]);
    case 'SOC 2 Type 2':
      return ref('SOC2', after('SOC_2_'));
    default:
      return undefined;
  }
}

/** Checkov quotes NIST SP 800-53 Rev 5 ids in a few AWS check docstrings. */
export function checkovNist(catalogs: Catalogs, id: string): ControlRef | undefined {
  const control = nist80053(catalogs, id);
  return control ? { framework: 'FEDRAMP', control } : undefined;
}
