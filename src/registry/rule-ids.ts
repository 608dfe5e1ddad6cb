/**
 * Regular spellings of scanner rule ids, normalised to the form the registry stores
 * (registry/sources/rule-ids/<tool>.txt). Irregular ones (renamed checks, tfsec-era names) are
 * data: registry/sources/rule-aliases/<tool>.yaml, looked up after these candidates.
 */

export type RuleIdMatch = 'exact' | 'form' | 'alias';

export interface RuleIdCandidate {
  id: string;
  matched_by: Exclude<RuleIdMatch, 'alias'>;
}

export interface RuleIdContext {
  /** kube-bench: the benchmark the scan ran (cis-1.23, eks-1.5.0, "1.23"); needed when the id is a bare recommendation number. */
  benchmark?: string;
}

/** Trivy: KSV001, KSV-001, ksv-0001, AVD-KSV-0001, AVD-AWS-0086 → KSV-0001, AWS-0086. */
function trivyForm(raw: string): string | undefined {
  const match = /^(?:AVD-)?([A-Z]+)-?(\d+)$/i.exec(raw.trim());
  return match ? `${match[1].toUpperCase()}-${match[2].padStart(4, '0')}` : undefined;
}

/**
 * Security Hub: the consolidated control id (S3.1) from a per-standard id or finding generator
 * (aws-foundational-security-best-practices/v/1.0.0/S3.1, arn:…:control/…/S3.1, security-control/S3.1).
 */
function securityHubForm(raw: string): string | undefined {
  const last = raw.trim().split('/').pop() ?? '';
  return /^[A-Za-z0-9]+\.\d+$/.test(last) ? last : undefined;
}

/** kube-bench benchmark names as the tool prints them ("cis-1.23"); a bare version means the generic CIS benchmark. */
export function normaliseBenchmark(benchmark: string): string {
  const b = benchmark.trim().toLowerCase();
  return /^\d/.test(b) ? `cis-${b}` : b;
}

/** Azure Policy: the GUID from a full definition id (/providers/Microsoft.Authorization/policyDefinitions/<guid>). */
function azureForm(raw: string): string | undefined {
  const last = raw.trim().split('/').pop() ?? '';
  return /^[0-9a-f-]{36}$/i.test(last) ? last.toLowerCase() : undefined;
}

/**
 * The ids to try, best first. kube-bench bare numbers need the benchmark: given in the context,
 * else the caller tries the benchmarks it knows (Registry.resolveToolRule: newest generic CIS first).
 */
export function ruleIdCandidates(toolId: string, raw: string, context: RuleIdContext = {}): RuleIdCandidate[] {
  const out: RuleIdCandidate[] = [];
  const add = (id: string | undefined, matched_by: RuleIdCandidate['matched_by']) => {
    if (id && !out.some((c) => c.id.toLowerCase() === id.toLowerCase())) out.push({ id, matched_by });
  };
  const trimmed = raw.trim();
  add(trimmed, 'exact');
  switch (toolId) {
    case 'trivy':
      add(trivyForm(trimmed), 'form');
      break;
    case 'aws-security-hub':
      add(securityHubForm(trimmed), 'form');
      break;
    case 'microsoft-defender-for-cloud':
      add(azureForm(trimmed), 'form');
      break;
    case 'kube-bench': {
      const slash = trimmed.lastIndexOf('/');
      if (slash > 0) add(`${normaliseBenchmark(trimmed.slice(0, slash))}/${trimmed.slice(slash + 1)}`, 'form');
      else if (context.benchmark) add(`${normaliseBenchmark(context.benchmark)}/${trimmed}`, 'form');
      break;
    }
    default:
      break;
  }
  return out;
}
