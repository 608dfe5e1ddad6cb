#!/usr/bin/env python3
"""Generate the GEN (cross-framework technical) layer of the registry:
signals/GEN*.yaml, finding-templates/GEN*.yaml, tool-mappings/<tool>.yaml, rule-ids/<tool>.txt.
Reads the scanner fact tables in ../shared/reference/tools (or $REF). Not run by the build.
Usage: python3 registry/import/gen_gen.py   (from the repo root)
"""
import json, os, re, sys, collections
import yaml
sys.path.insert(0, os.path.dirname(__file__))
from gen_signals_def import SIGNALS, H, M, L
from gen_topics import T, CSF
# merged into other signals after review (kept out of the output)
DROP = {'NACL ADMIN PORTS', 'DOCKERFILE ROOT USER', 'SAAS ADMIN AUDIT', 'SAAS IDENTITY HARDENING', 'K8S CONTROL PLANE MISC',
        'CONTAINER SERVICE HARDENING', 'REGISTRY PUBLIC'}
SIGNALS = [s for s in SIGNALS if s['key'] not in DROP]

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'sources'))
REF = os.environ.get('REF', '/work/shared/reference/tools')
DATE = '2026-11-21'

def jl(name):
    return json.load(open(os.path.join(REF, name)))

# ------------------------------------------------------------------ catalogs
CAT = {}
for code in ['HIPAA', 'CMMC', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'HITRUST', 'CIS', 'FEDRAMP', 'CCPA']:
    d = yaml.safe_load(open(os.path.join(ROOT, 'frameworks', code + '.yaml')))
    CAT[code] = {str(c['id']): c for c in d['controls']}
CMMC_BY_171 = {str(c.get('flags', {}).get('nist_800_171r2')): cid for cid, c in CAT['CMMC'].items()}

# ------------------------------------------------------------------ Prowler requirement -> canonical control
PC = jl('prowler_compliance.json')
REQTITLE = {(r['framework_key'], r['requirement_id']): (r.get('title') or '') for r in PC['requirements']}

def fed_id(rid):
    p = re.split(r'[-_]', rid)
    if len(p) < 2 or not p[1].isdigit():
        return None
    base = f'{p[0].upper()}-{p[1]}'
    if len(p) > 2 and p[2].isdigit():
        enh = f'{base}({p[2]})'
        if enh in CAT['FEDRAMP']:
            return enh
    return base if base in CAT['FEDRAMP'] else None

def canon(fk, rid):
    """Return (framework, control id) or None."""
    t = REQTITLE.get((fk, rid), '')
    if fk.startswith('hipaa_'):
        m = re.match(r'(164\.\d+\([a-z]\)(\(\d+\))?(\([ivx]+\))?(\([A-Z]\))?)', t)
        if m:
            cid = m.group(1)
            while cid and cid not in CAT['HIPAA']:
                cid = re.sub(r'\([^()]*\)$', '', cid) if cid.endswith(')') else ''
            return ('HIPAA', cid) if cid else None
    elif fk.startswith('soc2_'):
        m = re.match(r'((CC|A|C|PI|P)\d+\.\d+)', t)
        if m and m.group(1) in CAT['SOC2']:
            return ('SOC2', m.group(1))
    elif fk.startswith('iso27001_2022'):
        if rid in CAT['ISO27001']:
            return ('ISO27001', rid)
    elif fk.startswith('pci_4.0'):
        m = re.match(r'(\d+\.\d+)', rid)
        if m and m.group(1) in CAT['PCIDSS']:
            return ('PCIDSS', m.group(1))
    elif fk == 'gdpr_aws':
        m = re.match(r'article_(\d+)', rid)
        if m and f'Art. {m.group(1)}' in CAT['GDPR']:
            return ('GDPR', f'Art. {m.group(1)}')
    elif fk == 'nist_csf_2.0_aws':
        c = CSF.get(rid)
        if not c:
            m = re.match(r'(oc|rm|sc|rr|po|ov)_(\d+)$', rid)
            if m:
                c = f'GV.{m.group(1).upper()}-{int(m.group(2)):02d}'
        if c and c in CAT['NISTCSF']:
            return ('NISTCSF', c)
    elif fk.startswith('fedramp_') and 'ksi' not in fk or fk == 'nist_800_53_revision_5_aws':
        c = fed_id(rid)
        if c:
            return ('FEDRAMP', c)
    elif fk == 'cis_controls_8.1':
        if rid in CAT['CIS']:
            return ('CIS', rid)
    elif fk == 'cmmc_2.0':
        if rid in CAT['CMMC']:
            return ('CMMC', rid)
    elif fk == 'nist_800_171_revision_2_aws':
        c = CMMC_BY_171.get(rid.replace('_', '.'))
        if c:
            return ('CMMC', c)
    return None

CHECK_CTRL = collections.defaultdict(set)   # (provider, check) -> {(fw, ctrl)}
for check, prov, fk, rid, exists in PC['mappings']:
    if not exists:
        continue
    c = canon(fk, rid)
    if c:
        CHECK_CTRL[(prov, check)].add(c)

# ------------------------------------------------------------------ rules of every tool
PLAT_P = {'aws': 'aws', 'azure': 'azure', 'gcp': 'gcp', 'kubernetes': 'kubernetes', 'm365': 'm365',
          'googleworkspace': 'googleworkspace', 'github': 'github', 'oraclecloud': 'oci', 'alibabacloud': 'alibaba'}
PLAT_C = {'aws': 'aws', 'azure': 'azure', 'gcp': 'gcp', 'kubernetes': 'kubernetes', 'alibaba': 'alibaba', 'oci': 'oci',
          'docker': 'docker', 'github': 'github', 'github_actions': 'cicd', 'gitlab_ci': 'cicd', 'circleci': 'cicd',
          'azure_pipelines': 'cicd', 'bitbucket': 'cicd', 'gitlab': 'cicd', 'azuredevops': 'cicd', 'ansible': 'cicd',
          'terraform': 'cicd', 'argo': 'kubernetes', 'openapi': 'api', 'secrets': 'code'}
PLAT_T = {'aws': 'aws', 'azure': 'azure', 'google': 'gcp', 'oracle': 'oci', 'kubernetes': 'kubernetes', 'docker': 'docker', 'github': 'github'}

def norm(s):
    return re.sub(r'\s+', ' ', re.sub(r'[_\-]', ' ', (s or '').lower()))

RULES = []   # dict(tool, id, name, plat, text, svc)
P = jl('prowler_checks.json')['checks']
seen = set()
for c in P:
    key = c['check_id']
    plat = PLAT_P.get(c['provider'], 'other')
    RULES.append(dict(tool='prowler', id=key, name=c['title'], plat=plat, prov=c['provider'], svc=c['service'],
                      text=norm(key + ' ' + c['title']), dep=c['deprecated']))
C = jl('checkov_checks.json')['checks']
for c in C:
    plat = PLAT_C.get(c['provider'], 'other')
    rts = sorted({t for v in (c.get('resource_types') or {}).values() for t in v})
    RULES.append(dict(tool='checkov', id=c['check_id'], name=c['name'], plat=plat, prov=c['provider'],
                      svc=(rts[0] if rts else c['provider']), text=norm(c['name'] + ' ' + ' '.join(rts[:3])), dep=False))
TV = jl('trivy_checks.json')['checks']
for c in TV:
    plat = PLAT_T.get(c['provider'], 'other')
    RULES.append(dict(tool='trivy', id=c['id'], name=c['title'], plat=plat, prov=c['provider'], svc=c.get('service') or c['provider'],
                      text=norm(c['title'] + ' ' + (c.get('long_id') or '') + ' ' + ' '.join(c.get('kubernetes_kinds') or [])), dep=c.get('deprecated')))
FS = jl('aws_securityhub_fsbp.json')['controls']
for c in FS:
    RULES.append(dict(tool='aws-security-hub', id=c['control_id'], name=c['title'], plat='aws', prov='aws', svc=c['service'],
                      text=norm(c['service'] + ' ' + c['title']), dep=False, prowler=c.get('prowler_checks') or []))
KB = jl('kube_bench_checks.json')['checks']
for c in KB:
    RULES.append(dict(tool='kube-bench', id=f"{c['benchmark']}/{c['id']}", name=c['title'], plat='kubernetes', prov='kubernetes',
                      svc=c.get('node_type') or 'kubernetes', text=norm(c['title'] + ' ' + (c.get('group') or '')), dep=False))
AZ = jl('azure_policy.json')['definitions']
for c in AZ:
    if c['category'] == 'Regulatory Compliance' or c['deprecated']:
        continue
    RULES.append(dict(tool='microsoft-defender-for-cloud', id=c['policy_id'], name=c['display_name'], plat='azure', prov='azure',
                      svc=c['category'], text=norm(c['category'] + ': ' + c['display_name']), dep=False))

ALL_IDS = {
    'prowler': sorted({c['check_id'] for c in P}),
    'checkov': sorted({c['check_id'] for c in C}),
    'trivy': sorted({c['id'] for c in TV}),
    'aws-security-hub': sorted({c['control_id'] for c in FS}),
    'kube-bench': sorted({f"{c['benchmark']}/{c['id']}" for c in KB}),
    'microsoft-defender-for-cloud': sorted({c['policy_id'] for c in AZ}),
}

# ------------------------------------------------------------------ classification
K8S_CTX = r'kube|k8s|\beks\b|\baks\b|\bgke\b|\back\b|\boke\b|\btke\b|etcd|api ?server|kubelet|openshift|controller manager|scheduler|admission|node ?pool|node group|nodepool|\bmaster\b|kubernetes'
CONT_CTX = K8S_CTX + r'|container|\bpod|\becs\b|task definition|docker|workload|batch job|\bpsp\b|deployment|daemonset|statefulset|cronjob|helm|argo|workflow pods|fargate|privileged mode'
CLOUD = ['aws', 'azure', 'gcp', 'oci', 'alibaba', 'other', 'kubernetes']
SAAS = ['m365', 'googleworkspace', 'github', 'other']

OV = {  # per-signal overrides: ctx regex, neg regex, platforms
    'K8S CLUSTER IDENTITY': dict(ctx=K8S_CTX), 'K8S PUBLIC ENDPOINT': dict(ctx=K8S_CTX), 'K8S CLUSTER UPGRADE': dict(ctx=K8S_CTX),
    'K8S NETWORK POLICY': dict(ctx=K8S_CTX), 'K8S SECRETS ENCRYPTION': dict(ctx=K8S_CTX), 'K8S AUDIT LOG': dict(ctx=K8S_CTX),
    'K8S API ANON AUTH': dict(ctx=K8S_CTX), 'K8S AUTHZ MODE': dict(ctx=K8S_CTX), 'K8S ADMISSION PLUGINS': dict(ctx=K8S_CTX),
    'K8S CONTROL PLANE TLS': dict(ctx=K8S_CTX), 'K8S CERT ROTATION': dict(ctx=K8S_CTX), 'K8S FILE PERMS': dict(ctx=K8S_CTX + r'|file|director'),
    'K8S PROFILING BIND': dict(ctx=K8S_CTX), 'K8S SA TOKEN CONFIG': dict(ctx=K8S_CTX), 'K8S KUBELET HARDENING': dict(ctx=K8S_CTX),
    'K8S CONTROL PLANE MISC': dict(ctx=K8S_CTX), 'K8S DASHBOARD TILLER': dict(ctx=K8S_CTX), 'K8S NAMESPACE ISOLATION': dict(ctx=K8S_CTX),
    'K8S RBAC WILDCARD': dict(ctx=K8S_CTX + r'|role|binding'), 'K8S SA AUTOMOUNT': dict(ctx=CONT_CTX),
    'K8S PRIVILEGED CONTAINER': dict(ctx=CONT_CTX), 'K8S ROOT CONTAINER': dict(ctx=CONT_CTX), 'K8S HOST NAMESPACE': dict(ctx=CONT_CTX),
    'K8S CAPABILITIES': dict(ctx=CONT_CTX), 'K8S SECCOMP APPARMOR': dict(ctx=CONT_CTX), 'K8S READONLY ROOTFS': dict(ctx=CONT_CTX),
    'K8S RESOURCE LIMITS': dict(ctx=CONT_CTX + r'|lambda|function'), 'K8S PROBES': dict(ctx=CONT_CTX + r'|healthcheck'),
    'K8S IMAGE PROVENANCE': dict(ctx=CONT_CTX + r'|image|registr|ecr|acr|pipeline|orb'), 'K8S SECRETS ENV': dict(ctx=CONT_CTX),
    'K8S HOSTPATH': dict(ctx=CONT_CTX),
    'LOG VALIDATION': dict(ctx=r'log|trail|audit'), 'LOG RETENTION': dict(ctx=r'log|audit|trail|flow|collector|activity'),
    'LOG ENCRYPTION': dict(neg=r'bucket (is|are)? ?public'),
    'BUCKET PUBLIC READ': dict(neg=r'public network access|network access|private endpoint|private link|firewall'),
    'CERT EXPIRY': dict(neg=r'client cert'),
    'CMK NOT USED': dict(neg=r'polic|enclave|attestation|defender'), 'KEY OTHER': dict(neg=r'defender|enclave|attestation'),
    'CROSS ACCOUNT ACCESS': dict(neg=r'\bmfa\b|multifactor'), 'BACKUP DISABLED': dict(neg=r'copy tags|avoid using grs'),
    'ML AI SECURITY': dict(platforms=CLOUD, neg=r'ml dsa|pqc|post quantum'),
    'WEAK TLS VERSION': dict(platforms=CLOUD), 'LB INSECURE LISTENER': dict(platforms=CLOUD), 'DB TRANSPORT ENCRYPTION': dict(platforms=CLOUD),
    'AUDIT TRAIL DISABLED': dict(platforms=CLOUD + ['m365', 'googleworkspace', 'github']),
    'API AUTHORIZATION': dict(ctx=r'\bapi|gateway|app service|function|graphql|appsync|cognito|identity pool|web ?app|endpoint|application|cors|apps'),
    'BRANCH PROTECTION': dict(ctx=r'branch|repo|pull request|\bmerge|commit|github|gitlab|bitbucket|\bcode|\bprs?\b'),
    'DELETION PROTECTION': dict(platforms=CLOUD),
    'DNS LOGGING': dict(platforms=CLOUD), 'SERVICE LOGGING': dict(platforms=CLOUD), 'ACCESS LOGGING': dict(platforms=CLOUD),
    'CENTRAL LOG INTEGRATION': dict(platforms=CLOUD), 'PUBLIC NETWORK ACCESS': dict(platforms=CLOUD), 'NETWORK FIREWALL': dict(platforms=CLOUD + ['cicd']),
    'RESOURCE HYGIENE': dict(platforms=CLOUD), 'GUEST CONFIG BASELINE': dict(platforms=CLOUD), 'SINGLE ZONE': dict(platforms=CLOUD),
    'CONTAINER SERVICE HARDENING': dict(platforms=CLOUD), 'ALL PORTS OPEN INTERNET': dict(platforms=CLOUD),
    'SAAS IDENTITY HARDENING': dict(platforms=['m365', 'googleworkspace']),
    'COMPUTE DATA ENCRYPTION': dict(platforms=CLOUD), 'UNSUPPORTED VERSION': dict(platforms=CLOUD),
    'AUTO UPGRADE': dict(platforms=CLOUD), 'OS PATCHING': dict(platforms=CLOUD), 'MALWARE PROTECTION': dict(platforms=CLOUD + ['m365']),
    'SESSION TIMEOUT': dict(platforms=CLOUD + SAAS), 'UNUSED CREDENTIALS': dict(platforms=CLOUD + SAAS),
    'HARDCODED SECRETS': dict(extra=[(r'.', H, ['code'])]),
    'SECURITY ALARMS': dict(platforms=CLOUD),
    'RESOURCE POLICY PUBLIC': dict(neg=r'public network access|private endpoint'),
    'DNS SECURITY': dict(platforms=CLOUD, neg=r'private dns'),
    'THREAT DETECTION OFF': dict(platforms=CLOUD),
    'POSTURE SERVICE OFF': dict(platforms=CLOUD),
}

ORDER = """K8S API ANON AUTH|K8S AUTHZ MODE|K8S ADMISSION PLUGINS|K8S SECRETS ENCRYPTION|K8S SA TOKEN CONFIG|K8S CONTROL PLANE TLS|K8S CERT ROTATION|K8S AUDIT LOG|K8S FILE PERMS|K8S PROFILING BIND|K8S KUBELET HARDENING|K8S CONTROL PLANE MISC|
K8S PUBLIC ENDPOINT|K8S CLUSTER UPGRADE|K8S CLUSTER IDENTITY|K8S NETWORK POLICY|K8S DASHBOARD TILLER|
K8S PRIVILEGED CONTAINER|K8S HOST NAMESPACE|K8S CAPABILITIES|K8S HOSTPATH|K8S ROOT CONTAINER|K8S SECCOMP APPARMOR|K8S READONLY ROOTFS|K8S RESOURCE LIMITS|K8S PROBES|K8S IMAGE PROVENANCE|K8S SA AUTOMOUNT|K8S SECRETS ENV|K8S RBAC WILDCARD|K8S NAMESPACE ISOLATION|
DOCKERFILE ROOT USER|DOCKERFILE BUILD HYGIENE|BRANCH PROTECTION|REPO SECURITY SETTINGS|CI PIPELINE SECURITY|API SPEC SECURITY|
SECURITY CONTACT|SECURITY ALARMS|THREAT FINDINGS OPEN|IMDS V1|
LOG BUCKET EXPOSURE|LOG ENCRYPTION|LOG VALIDATION|BACKUP VAULT PROTECTION|
SNAPSHOT PUBLIC|BUCKET PUBLIC WRITE|REGISTRY PUBLIC|BUCKET PUBLIC READ|DATABASE PUBLIC|SERVERLESS PUBLIC|PUBLIC NETWORK ACCESS|RESOURCE POLICY PUBLIC|CROSS ACCOUNT ACCESS|
SSH OPEN INTERNET|RDP OPEN INTERNET|DB PORTS OPEN INTERNET|NACL ADMIN PORTS|ALL PORTS OPEN INTERNET|DEFAULT NETWORK|FLOW LOGS DISABLED|DNS LOGGING|WAF MISSING|DDOS PROTECTION|
SECRET ROTATION|ACCESS KEY ROTATION|ROOT MFA|ROOT ACCESS KEYS|ROOT USAGE|KEY ROTATION|KEY DELETION|WEAK TLS VERSION|LB INSECURE LISTENER|DB TRANSPORT ENCRYPTION|CERT EXPIRY|
CMK NOT USED|BUCKET ENCRYPTION|VOLUME ENCRYPTION|DATABASE ENCRYPTION|MESSAGING ENCRYPTION|COMPUTE DATA ENCRYPTION|KEY OTHER|
EMAIL AUTH|USER MFA|PASSWORD POLICY|PRIVILEGE ESCALATION|POLICY ATTACHMENT|DEFAULT SERVICE ACCOUNT|ADMIN PRIVILEGES|PRIVILEGED ROLE COUNT|UNUSED CREDENTIALS|
SESSION TIMEOUT|HARDCODED SECRETS|FEDERATION SSO|API AUTHORIZATION|ML AI SECURITY|
LOG RETENTION|DATA EVENT LOGGING|DB AUDIT LOGGING|ACCESS LOGGING|AUDIT TRAIL DISABLED|CENTRAL LOG INTEGRATION|
VULN SCANNING OFF|VULN FINDINGS OPEN|THREAT DETECTION OFF|POSTURE SERVICE OFF|SENSITIVE DATA DISCOVERY|
UNSUPPORTED VERSION|AUTO UPGRADE|OS PATCHING|MALWARE PROTECTION|
PITR DISABLED|VERSIONING DISABLED|BACKUP DISABLED|DELETION PROTECTION|SINGLE ZONE|
VM PUBLIC IP|EMAIL THREAT PROTECTION|EXTERNAL SHARING|SAAS ADMIN AUDIT|SERVICE LOGGING|GUEST CONFIG BASELINE|CONTAINER SERVICE HARDENING|DNS SECURITY|NETWORK FIREWALL|RESOURCE HYGIENE|SAAS IDENTITY HARDENING"""
ORDER = [k.strip() for k in ORDER.replace('\n', '').split('|') if k.strip() not in DROP]
SIG = {s['key']: s for s in SIGNALS}
assert set(ORDER) == set(SIG), (set(SIG) - set(ORDER), set(ORDER) - set(SIG))
for k, o in OV.items():
    if k in DROP:
        continue
    assert k in SIG, k
    SIG[k].update({kk: vv for kk, vv in o.items() if kk != 'platforms'})
    if 'platforms' in o:
        SIG[k]['platforms'] = o['platforms']
COMPILED = []
for k in ORDER:
    s = SIG[k]
    pats = [(re.compile(p), c, None) for p, c in s['pats']] + [(re.compile(p), c, pl) for p, c, pl in s.get('extra', [])]
    COMPILED.append((s, pats, re.compile(s['ctx']) if s.get('ctx') else None, re.compile(s['neg']) if s.get('neg') else None))

PRE = [  # evaluated before the ordered signal patterns: (regex, signal key or None to leave unmapped, conf, platforms)
    (re.compile(r'enable logging by category group|diagnostic setting|resource logs in|diagnostic logs'), 'SERVICE LOGGING', H, ['azure']),
    (re.compile(r'private dns zone'), None, None, ['azure']),
    (re.compile(r'azure monitor agent|dependency agent|data collection rule|log analytics agent|monitoring agent'), 'SERVICE LOGGING', M, ['azure']),
]

def classify(r):
    for rx, key, conf, pl in PRE:
        if r['plat'] in pl and rx.search(r['text']):
            return (SIG[key], conf) if key else (None, None)
    for s, pats, ctx, neg in COMPILED:
        for rx, conf, pl in pats:
            if pl is not None:
                if r['plat'] in pl and rx.search(r['text']):
                    return s, conf
                continue
            if s['platforms'] and r['plat'] not in s['platforms']:
                continue
            if ctx and r['plat'] not in ('kubernetes', 'docker') and not ctx.search(r['text']):
                continue
            if neg and neg.search(r['text']):
                continue
            if rx.search(r['text']):
                return s, conf
    return None, None

RESULT = []
by_prowler = {}
for r in RULES:
    if r['tool'] == 'aws-security-hub':
        continue
    s, conf = classify(r)
    if s:
        if r.get('dep'):
            conf = L if conf == M else (M if conf == H else L)
        RESULT.append((r, s, conf))
        if r['tool'] == 'prowler' and r['plat'] == 'aws':
            by_prowler[r['id']] = (s, conf)
for r in RULES:
    if r['tool'] != 'aws-security-hub':
        continue
    hit = [by_prowler[p] for p in r['prowler'] if p in by_prowler]
    if hit:
        RESULT.append((r, hit[0][0], hit[0][1]))
    else:
        s, conf = classify(r)
        if s:
            RESULT.append((r, s, conf))

# ------------------------------------------------------------------ outputs
PLABEL = {'aws': 'AWS', 'azure': 'Azure', 'gcp': 'Google Cloud', 'oci': 'Oracle Cloud (OCI)', 'alibaba': 'Alibaba Cloud',
          'kubernetes': 'Kubernetes', 'docker': 'Dockerfile', 'm365': 'Microsoft 365', 'googleworkspace': 'Google Workspace',
          'github': 'GitHub', 'cicd': 'CI/CD pipeline', 'api': 'OpenAPI specification', 'code': 'Source code',
          'other': 'Other cloud and SaaS platforms'}
PORDER = ['aws', 'azure', 'gcp', 'oci', 'alibaba', 'kubernetes', 'docker', 'm365', 'googleworkspace', 'github', 'cicd', 'api', 'code', 'other']
CATDESC = {'ACCESS': 'Exposure of resources and authorisation of access to them', 'ADMIN': 'Administrative safeguards',
           'ASSET': 'Inventory, ownership and hygiene of cloud assets', 'AUDIT': 'Logging, log protection, alerting and detection coverage',
           'BCP': 'Backups, recoverability and availability of critical resources', 'COMMS': 'Messaging and e-mail security',
           'CONFIG': 'Secure configuration and hardening of hosts, containers and clusters', 'CRYPTO': 'Encryption at rest and in transit, keys and certificates',
           'DATA': 'Protection of secrets and sensitive data against leakage', 'DEV': 'Source control, CI/CD and software supply-chain integrity',
           'IDENTITY': 'Authentication, credentials and identity lifecycle', 'IR': 'Incident notification and response readiness',
           'NET': 'Network exposure, segmentation and perimeter protection', 'VULN': 'Vulnerability scanning, patching and supported versions'}
FWS = ['HIPAA', 'SOC2', 'ISO27001', 'PCIDSS', 'GDPR', 'NISTCSF', 'FEDRAMP', 'CIS', 'CMMC', 'HITRUST', 'CCPA']

def ctitle(fw, cid):
    return CAT[fw][cid].get('title') or cid

def lc_first(s):
    return s[0].lower() + s[1:] if s else s

sig_rules = collections.defaultdict(list)
for r, s, conf in RESULT:
    sig_rules[s['key']].append((r, conf))

signals_out = []
templates_out = []
tool_maps = collections.defaultdict(list)
seq = 0
SIG_ORDER = [s['key'] for s in SIGNALS]
for key in SIG_ORDER:
    s = SIG[key]
    seq += 1
    name = key.replace(' ', '-')
    assert len(key.split()) <= 4, key
    sid = f"CSR-GEN-{s['cat']}-{name}-{seq:03d}"
    s['sid'] = sid
    rules = sig_rules.get(key, [])
    pchecks = [(r['prov'], r['id']) for r, c in rules if r['tool'] == 'prowler' and c in (H, M)]
    ctr = collections.Counter()
    ex = collections.defaultdict(list)
    for pc in pchecks:
        for fw, cid in CHECK_CTRL.get(pc, ()):
            ctr[(fw, cid)] += 1
            if pc[1] not in ex[(fw, cid)]:
                ex[(fw, cid)].append(pc[1])
    tp = T[s['topic']]
    maps = []
    cond0 = lc_first(s['conds'][0]).rstrip('.')
    for fw in FWS:
        ids = [c for c in tp['fw'].get(fw, []) if c in CAT[fw]]
        used = set()
        for i, cid in enumerate(ids):
            n = ctr.get((fw, cid), 0)
            if fw in ('HITRUST', 'CCPA'):
                rel, conf = 'supporting', 0.7 if fw == 'HITRUST' else 0.6
            elif i == 0 or n > 0:
                rel, conf = 'primary', (0.85 if n >= 2 else 0.8)
            else:
                rel, conf = 'supporting', 0.7
            rat = f"Fires when {cond0}. {tp['reason']} Relevant to {fw} {cid} ({ctitle(fw, cid)})."
            if n:
                exs = ex[(fw, cid)][:5]
                rat += f" Prowler maps {n} of the checks behind this signal to this requirement."
                prov = {'kind': 'scanner_rule', 'source': 'prowler', 'rules': exs}
            else:
                prov = {'kind': 'expert'}
            maps.append({'framework': fw, 'control': cid, 'relationship': rel, 'confidence': conf, 'rationale': rat, 'provenance': prov})
            used.add(cid)
        if fw in ('HITRUST', 'CCPA') or not pchecks:
            continue
        # scanner-derived supporting mappings
        thr = max(2, int(0.3 * len(pchecks) + 0.999))
        cands = sorted([(n, c) for (f, c), n in ctr.items() if f == fw and c not in used and n >= thr], key=lambda x: (-x[0], x[1]))[:2]
        for n, cid in cands:
            maps.append({'framework': fw, 'control': cid, 'relationship': 'partial' if n < len(pchecks) / 2 else 'supporting',
                         'confidence': 0.65 if n < len(pchecks) / 2 else 0.7,
                         'rationale': f"Prowler maps {n} of the {len(pchecks)} checks behind this signal ({s['short']}) to {fw} {cid} ({ctitle(fw, cid)}); the finding is related evidence for it but not the control's main test.",
                         'provenance': {'kind': 'scanner_rule', 'source': 'prowler', 'rules': ex[(fw, cid)][:5]}})
    nprim = len({m['framework'] for m in maps if m['relationship'] == 'primary'})
    assert nprim >= 5, (key, nprim)
    signals_out.append({
        'id': sid, 'category': s['cat'], 'title': s['title'], 'description': s['desc'], 'severity': s['sev'],
        'tags': s['tags'][:6], 'version': '1.0.0', 'created': DATE, 'updated': DATE, 'effort': s['effort'],
        'detection': {'artifact_types': s['arts'][:4], 'conditions': s['conds'][:3]},
        'remediation_hint': s['rem'], 'mappings': maps})
    # templates per platform
    byplat = collections.defaultdict(list)
    for r, c in rules:
        byplat[r['plat']].append((r, c))
    t = 0
    for plat in PORDER:
        if plat not in byplat:
            continue
        t += 1
        tid = f"FT-GEN-{s['cat']}-{name}-{seq:03d}-{t:03d}"
        rr = byplat[plat]
        svcs = [x for x, _ in collections.Counter(r['svc'] for r, c in rr if r['svc']).most_common(6)]
        exr = []
        for r, c in sorted(rr, key=lambda x: (x[1] != H, x[0]['tool'])):
            if r['id'] not in exr and len(exr) < 3 and r['tool'] != 'microsoft-defender-for-cloud':
                exr.append(r['id'])
        if not exr:
            exr = [rr[0][0]['name'][:80]]
        method = s['method']
        if plat in ('docker', 'cicd', 'api'):
            method = 'iac_scan'
        elif plat == 'code':
            method = 'code_scan'
        elif plat in ('m365', 'googleworkspace', 'github') and method == 'config_check':
            method = 'api_query'
        lab = PLABEL[plat]
        templates_out.append({
            'id': tid, 'signal_id': sid, 'version': '1.0.0', 'status': 'ACTIVE',
            'title': f"{lab}: {s['short']}",
            'description': f"{s['desc']} On {lab} the mapped scanner rules evaluate {', '.join(svcs)}.",
            'severity': s['sev'], 'category': s['tcat'], 'applicable_artifacts': s['arts'][:4],
            'detection': {'method': method, 'criteria': s['conds'][:3] + [f"a mapped {lab} scanner rule (for example {', '.join(exr)}) reports a failing result for the resource"]},
            'remediation': {'description': s['rem'], 'steps': s['steps'] + [f"Re-run the {lab} scan and confirm the mapped rules now pass."]}})
        for r, c in rr:
            tool_maps[r['tool']].append({'rule_id': r['id'], 'rule_name': r['name'], 'template': tid, 'confidence': c})

# ------------------------------------------------------------------ write
def dump(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        yaml.safe_dump(obj, f, sort_keys=False, width=150, allow_unicode=True, default_flow_style=False)

for d in ('signals', 'finding-templates'):
    dd = os.path.join(ROOT, d)
    for fn in os.listdir(dd) if os.path.isdir(dd) else []:
        if re.match(r'GEN(-\d+)?\.yaml$', fn):
            os.remove(os.path.join(dd, fn))
cats = sorted({s['category'] for s in signals_out})
chunk = 40
for i in range(0, len(signals_out), chunk):
    part = signals_out[i:i + chunk]
    if i == 0:
        obj = {'domain': 'GEN', 'name': 'Cross-framework technical signals',
               'description': 'Technical conditions that cloud, container, Kubernetes, SaaS and code scanners detect across providers, each mapped to the controls of the gap-analysis frameworks it evidences and grounded in the scanner rules that test it.',
               'categories': {c: CATDESC[c] for c in cats}, 'signals': part}
        dump(os.path.join(ROOT, 'signals', 'GEN.yaml'), obj)
    else:
        dump(os.path.join(ROOT, 'signals', f'GEN-{i // chunk + 1}.yaml'), {'domain': 'GEN', 'signals': part})
tch = 120
for i in range(0, len(templates_out), tch):
    fn = 'GEN.yaml' if i == 0 else f'GEN-{i // tch + 1}.yaml'
    dump(os.path.join(ROOT, 'finding-templates', fn), {'templates': templates_out[i:i + tch]})
for tool, ms in tool_maps.items():
    seen_m = set()
    ms[:] = [m for m in ms if (m['rule_id'], m['template']) not in seen_m and not seen_m.add((m['rule_id'], m['template']))]
    ms.sort(key=lambda m: m['rule_id'])
    dump(os.path.join(ROOT, 'tool-mappings', f'{tool}.yaml'), {'tool_id': tool, 'mappings': ms})
os.makedirs(os.path.join(ROOT, 'rule-ids'), exist_ok=True)
for tool, ids in ALL_IDS.items():
    with open(os.path.join(ROOT, 'rule-ids', f'{tool}.txt'), 'w') as f:
        f.write('\n'.join(sorted(set(ids))) + '\n')
print('signals', len(signals_out), 'templates', len(templates_out))
for tool in ALL_IDS:
    print(tool, 'mappings', len(tool_maps.get(tool, [])), 'rule ids', len(ALL_IDS[tool]))
