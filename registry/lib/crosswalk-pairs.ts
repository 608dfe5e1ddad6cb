/**
 * Expands published crosswalk rows into pairs of registry controls.
 *
 * FedRAMP Rev 5 uses SP 800-53 Rev 5 ids, so a row naming NIST80053R5 applies to NIST80053R5 and
 * to FEDRAMP (where FedRAMP has the id). Rows naming NIST80053R4 (the SP 800-171 Rev 2 appendix
 * behind CMMC__NIST80053R4) apply to FEDRAMP only where the id exists there, and only as a partial
 * relationship: Rev 4 and Rev 5 controls with one id are close but not the same control.
 */
import type { CrosswalkNode, FrameworkNode } from './model.js';

export const REVISION_4 = 'NIST80053R4';
export const REVISION_5 = 'NIST80053R5';
export const FEDRAMP = 'FEDRAMP';

/** Published relationship vocabulary, as it appears in the crosswalk files. */
export const ROW_RELATIONSHIPS = ['equal', 'subset', 'superset', 'intersect', 'related', 'supports', 'is supported by'] as const;
export type RowRelationship = (typeof ROW_RELATIONSHIPS)[number];

export interface ControlPair {
  fa: string;
  ca: string;
  fb: string;
  cb: string;
  relationship: RowRelationship;
  /** The pair reaches FedRAMP through a Rev 4 id. */
  viaRevision4: boolean;
  stem: string;
  publisher: string;
}

export interface ExpandedCrosswalk {
  pairs: ControlPair[];
  /** Distinct control ids of each side that no registry framework holds (ISMS clauses, withdrawn ids, …). */
  unresolved: { a: string[]; b: string[] };
}

export function isCrosswalkFramework(code: string, frameworks: Map<string, FrameworkNode>): boolean {
  return code === REVISION_4 || frameworks.has(code);
}

function resolveSide(code: string, control: string, frameworks: Map<string, FrameworkNode>): Array<{ framework: string; control: string }> {
  const out: Array<{ framework: string; control: string }> = [];
  const add = (framework: string) => {
    if (frameworks.get(framework)?.byId.has(control)) out.push({ framework, control });
  };
  if (code === REVISION_4) add(FEDRAMP);
  else {
    add(code);
    if (code === REVISION_5) add(FEDRAMP);
  }
  return out;
}

export function expandCrosswalk(crosswalk: CrosswalkNode, frameworks: Map<string, FrameworkNode>): ExpandedCrosswalk {
  const pairs: ControlPair[] = [];
  const unresolvedA = new Set<string>();
  const unresolvedB = new Set<string>();
  for (const row of crosswalk.rows) {
    const sideA = resolveSide(crosswalk.framework_a, row.a, frameworks);
    const sideB = resolveSide(crosswalk.framework_b, row.b, frameworks);
    if (!sideA.length) unresolvedA.add(row.a);
    if (!sideB.length) unresolvedB.add(row.b);
    const viaRevision4 = crosswalk.framework_a === REVISION_4 || crosswalk.framework_b === REVISION_4;
    for (const a of sideA) {
      for (const b of sideB) {
        if (a.framework === b.framework) continue;
        pairs.push({
          fa: a.framework,
          ca: a.control,
          fb: b.framework,
          cb: b.control,
          relationship: row.relationship as RowRelationship,
          viaRevision4,
          stem: crosswalk.stem,
          publisher: crosswalk.publisher,
        });
      }
    }
  }
  return { pairs, unresolved: { a: [...unresolvedA], b: [...unresolvedB] } };
}

/** A pair seen from one of its controls: the other control and how they relate. */
export interface CrosswalkLink {
  framework: string;
  control: string;
  relationship: RowRelationship;
  viaRevision4: boolean;
  stem: string;
  publisher: string;
}

const linkKey = (framework: string, control: string) => `${framework}|${control}`;

const REVERSED: Record<RowRelationship, RowRelationship> = {
  equal: 'equal',
  subset: 'superset',
  superset: 'subset',
  intersect: 'intersect',
  related: 'related',
  supports: 'is supported by',
  'is supported by': 'supports',
};

/** Both directions of every pair, looked up by (framework, control); relationship as seen from the control looked up. */
export class CrosswalkLinks {
  private readonly links = new Map<string, CrosswalkLink[]>();

  constructor(pairs: ControlPair[]) {
    for (const p of pairs) {
      const common = { relationship: p.relationship, viaRevision4: p.viaRevision4, stem: p.stem, publisher: p.publisher };
      this.add(linkKey(p.fa, p.ca), { framework: p.fb, control: p.cb, ...common });
      // Seen from b, a directional relationship reads the other way round (a ⊂ b is b ⊃ a).
      this.add(linkKey(p.fb, p.cb), { framework: p.fa, control: p.ca, ...common, relationship: REVERSED[p.relationship] });
    }
  }

  private add(key: string, link: CrosswalkLink) {
    const list = this.links.get(key);
    if (list) list.push(link);
    else this.links.set(key, [link]);
  }

  of(framework: string, control: string): readonly CrosswalkLink[] {
    return this.links.get(linkKey(framework, control)) ?? [];
  }
}
