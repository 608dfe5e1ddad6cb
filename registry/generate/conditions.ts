/**
 * Groups scanner rules into conditions: one group = rules that check the same thing on the same
 * kind of resource. Rules are joined only where a fact says they test the same thing, never by
 * keywords:
 *
 * - a Security Hub control and the Prowler checks Prowler lists for it;
 * - a CIS benchmark recommendation (same benchmark version) that Prowler, Trivy and kube-bench
 *   each implement with one rule (a recommendation a tool covers with three or more rules is
 *   not used as a join: it is broader than one condition);
 * - kube-bench rules of different benchmarks with the same recommendation text;
 * - rules of one tool with the same title on the same platform (Checkov repeats a check per IaC
 *   framework under several ids; Azure publishes some policies twice);
 * - a short list of joins we authored (AUTHORED_JOINS) where no published map links two tools.
 */
import type { Facts } from './inputs.js';
import type { Rule } from './rules.js';

class UnionFind {
  private readonly parent = new Map<string, string>();

  find(x: string): string {
    let root = x;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    let node = x;
    while (node !== root) {
      const next = this.parent.get(node) ?? root;
      this.parent.set(node, root);
      node = next;
    }
    if (!this.parent.has(root)) this.parent.set(root, root);
    return root;
  }

  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    // The smaller key wins, so the result does not depend on the order of the joins.
    if (ra !== rb) ra < rb ? this.parent.set(rb, ra) : this.parent.set(ra, rb);
  }
}

/**
 * Joins we authored: a rule of a tool that publishes no framework map (Checkov, for checks whose
 * code names no NIST control) and a rule of another tool that checks the same condition on the
 * same kind of resource, read from both tools' own descriptions of the check. Without a join
 * such a rule maps nowhere and a scan reporting it is unrecognised. Each entry names the
 * condition; like any fact join, it applies only when it points the rule at one condition.
 */
const AUTHORED_JOINS: ReadonlyArray<{ rule: string; joins: string; condition: string }> = [
  { rule: 'checkov|CKV_AWS_118', joins: 'aws-security-hub|RDS.6', condition: 'an RDS DB instance without enhanced monitoring' },
  {
    rule: 'checkov|CKV_AWS_126',
    joins: 'prowler|aws|ec2_instance_detailed_monitoring_enabled',
    condition: 'an EC2 instance without detailed (one-minute) monitoring',
  },
  { rule: 'checkov|CKV2_AWS_61', joins: 'aws-security-hub|S3.13', condition: 'an S3 bucket without a lifecycle configuration' },
];

/** A recommendation implemented with more rules than this is broader than one condition. */
const MAX_RULES_PER_JOIN = 2;

/** kube-bench recommendation text without the assessment marker and the "Ensure that" preamble. */
export function recommendationText(title: string): string {
  return title
    .toLowerCase()
    .replace(/\((automated|manual|scored|not scored)\)/g, '')
    .replace(/^\s*(ensure|verify)( that)?\s+/, '')
    .replace(/[`'"’]/g, '')
    .replace(/[.\s]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** kube-bench group names spell one component several ways across benchmarks ("API Server", "Kube-apiserver"). */
export function componentOf(group: string): string {
  const g = group.toLowerCase().replace(/[^a-z]/g, '');
  for (const [component, pattern] of [
    ['apiserver', /apiserver/],
    ['controllermanager', /controllermanager/],
    ['scheduler', /scheduler/],
    ['etcd', /etcd/],
    ['kubelet', /kubelet/],
    ['proxy', /proxy/],
  ] as const)
    if (pattern.test(g)) return component;
  return g;
}

/** Prowler CIS Kubernetes file → the kube-bench benchmark of the same CIS version. */
const KUBE_BENCH_OF: Record<string, string> = {
  'cis_1.8_kubernetes': 'cis-1.8',
  'cis_1.10_kubernetes': 'cis-1.10',
  'cis_1.11_kubernetes': 'cis-1.11',
  'cis_1.12_kubernetes': 'cis-1.12',
};
/** Trivy compliance spec → the kube-bench benchmark or Prowler CIS AWS file of the same version. */
const TRIVY_SPEC_OF: Record<string, { kubeBench?: string; prowler?: string }> = {
  'k8s-cis-1.23': { kubeBench: 'cis-1.23' },
  'rke2-cis-1.24': { kubeBench: 'rke2-cis-1.24' },
  'aws-cis-1.4': { prowler: 'cis_1.4_aws' },
};

export function groupRules(rules: Rule[], facts: Facts): Rule[][] {
  const uf = new UnionFind();
  const byKey = new Map(rules.map((r) => [r.key, r]));
  for (const r of rules) uf.find(r.key);

  // Same text first: kube-bench across benchmarks, Checkov and Azure within one platform.
  const sameText = new Map<string, string>();
  for (const r of rules) {
    let text: string | undefined;
    if (r.tool === 'kube-bench') text = `kube-bench|${componentOf(r.categories[0] ?? '')}|${recommendationText(r.title)}`;
    else if (r.tool === 'checkov' || r.tool === 'microsoft-defender-for-cloud')
      text = `${r.tool}|${r.platform}|${r.title.toLowerCase().replace(/\s+/g, ' ').trim()}`;
    if (!text) continue;
    const first = sameText.get(text);
    if (first) uf.union(first, r.key);
    else sameText.set(text, r.key);
  }

  // Fact joins, collected first: a rule joins only when every fact points it at the same condition
  // (a Prowler check listed under two Security Hub controls, or a check that one benchmark version
  // numbers differently from the next, would otherwise chain unrelated conditions together).
  const targets = new Map<string, Set<string>>();
  const propose = (rule: string, other: string) => {
    if (!byKey.has(rule) || !byKey.has(other)) return;
    targets.set(rule, (targets.get(rule) ?? new Set()).add(uf.find(other)));
  };
  for (const [control, , checks] of facts.securityHub.controls) {
    for (const check of checks) propose(`prowler|aws|${check}`, `aws-security-hub|${control}`);
  }
  const prowlerByRequirement = new Map<string, string[]>();
  for (const [provider, check, fk, requirement] of facts.prowlerClaims.claims) {
    if (!/^cis_[0-9.]+_(aws|kubernetes)$/.test(fk)) continue;
    const k = `${fk}|${requirement}`;
    prowlerByRequirement.set(k, [...(prowlerByRequirement.get(k) ?? []), `prowler|${provider}|${check}`]);
  }
  for (const [k, keys] of prowlerByRequirement) {
    const [fk, requirement] = k.split('|');
    const benchmark = KUBE_BENCH_OF[fk];
    if (!benchmark || keys.length > MAX_RULES_PER_JOIN) continue;
    for (const key of keys) propose(key, `kube-bench|${benchmark}/${requirement}`);
  }
  for (const [spec, control, checks] of facts.trivy.spec_controls) {
    const target = TRIVY_SPEC_OF[spec];
    if (!target || checks.length > MAX_RULES_PER_JOIN) continue;
    for (const check of checks) {
      if (target.kubeBench) propose(`trivy|${check}`, `kube-bench|${target.kubeBench}/${control}`);
      const prowler = target.prowler && prowlerByRequirement.get(`${target.prowler}|${control}`);
      if (prowler && prowler.length === 1) propose(`trivy|${check}`, prowler[0]);
    }
  }
  for (const join of AUTHORED_JOINS) propose(join.rule, join.joins);
  for (const [rule, roots] of [...targets.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (roots.size === 1) uf.union(rule, [...roots][0]);
  }

  const groups = new Map<string, Rule[]>();
  for (const r of rules) {
    const root = uf.find(r.key);
    groups.set(root, [...(groups.get(root) ?? []), r]);
  }
  return [...groups.values()];
}
