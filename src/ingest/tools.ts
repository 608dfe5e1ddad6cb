/**
 * Scanner names as files write them ("Prowler", "Security Hub", "Gitleaks") → the registry's tool
 * ids, so that a rule resolves through the right tool's mappings. A name not listed becomes its
 * own lower-case, hyphenated spelling: such a tool has no mappings, and its results resolve through
 * vulnerability ids, CWE tags or its category only.
 */
const TOOL_IDS: Record<string, string> = {
  prowler: 'prowler',
  checkov: 'checkov',
  trivy: 'trivy',
  tfsec: 'tfsec',
  'kube-bench': 'kube-bench',
  kubebench: 'kube-bench',
  'security hub': 'aws-security-hub',
  'aws security hub': 'aws-security-hub',
  securityhub: 'aws-security-hub',
  'microsoft defender for cloud': 'microsoft-defender-for-cloud',
  'azure policy': 'microsoft-defender-for-cloud',
  'azure security center': 'microsoft-defender-for-cloud',
  inspector: 'aws-inspector',
  'amazon inspector': 'aws-inspector',
  semgrep: 'semgrep',
  'semgrep oss': 'semgrep',
  gitleaks: 'gitleaks',
  trufflehog: 'trufflehog',
  codeql: 'codeql',
  bandit: 'bandit',
  grype: 'grype',
  kics: 'kics',
  kubescape: 'kubescape',
  'dependency-check': 'dependency-check',
  guardduty: 'aws-guardduty',
  'amazon guardduty': 'aws-guardduty',
  'aws guardduty': 'aws-guardduty',
  snyk: 'snyk',
  'snyk open source': 'snyk',
  'snyk code': 'snyk',
  'snyk container': 'snyk',
  'snyk iac': 'snyk',
  inspec: 'inspec',
  nessus: 'nessus',
  zap: 'zap',
  'owasp zap': 'zap',
  'google security command center': 'google-scc',
  'security command center': 'google-scc',
  'owasp dependency-check': 'dependency-check',
};

export function toolIdOf(name: string): string {
  const key = name.trim().toLowerCase();
  return TOOL_IDS[key] ?? (key.replace(/[^a-z0-9.]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown');
}
