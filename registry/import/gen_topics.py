# Expert topic -> framework control defaults for GEN signals.
# Each entry: framework -> list of control ids; the first one or two are the primary
# controls for signals of that topic. Reasons are our own words.
T = {}
def topic(name, reason, **fw):
    T[name] = dict(reason=reason, fw=fw)

topic('enc_rest', 'Encryption of stored data is the safeguard this control asks for, so an unencrypted store is a direct gap.',
      HIPAA=['164.312(a)(2)(iv)'], SOC2=['CC6.1'], ISO27001=['A.8.24'], PCIDSS=['3.5'], GDPR=['Art. 32'], NISTCSF=['PR.DS-01'],
      FEDRAMP=['SC-28', 'SC-28(1)'], CIS=['3.11'], CMMC=['SC.L2-3.13.16'], HITRUST=['06.d'], CCPA=['1798.150'])
topic('key_mgmt', 'The control expects cryptographic keys to be generated, owned, rotated and protected by the organisation; weak key handling undermines it.',
      HIPAA=['164.312(a)(2)(iv)'], SOC2=['CC6.1'], ISO27001=['A.8.24'], PCIDSS=['3.6', '3.7'], GDPR=['Art. 32'], NISTCSF=['PR.DS-01'],
      FEDRAMP=['SC-12'], CIS=['3.11'], CMMC=['SC.L2-3.13.10'], HITRUST=['10.g'])
topic('enc_transit', 'The control requires data to be protected while it crosses networks; cleartext or weakly encrypted channels fail it.',
      HIPAA=['164.312(e)(2)(ii)', '164.312(e)(1)'], SOC2=['CC6.7'], ISO27001=['A.8.24', 'A.5.14'], PCIDSS=['4.2'], GDPR=['Art. 32'],
      NISTCSF=['PR.DS-02'], FEDRAMP=['SC-8', 'SC-8(1)'], CIS=['3.10'], CMMC=['SC.L2-3.13.8'], HITRUST=['09.s'])
topic('cert_mgmt', 'Trusted, valid certificates are what make encrypted channels authentic, which this control depends on.',
      HIPAA=['164.312(e)(1)'], SOC2=['CC6.7'], ISO27001=['A.8.24'], PCIDSS=['4.2'], GDPR=['Art. 32'], NISTCSF=['PR.DS-02'],
      FEDRAMP=['SC-17'], CIS=['3.10'], CMMC=['SC.L2-3.13.10'], HITRUST=['10.g'])
topic('public_data', 'The control limits access to information to authorised parties; anonymous or world-wide access is the clearest possible violation.',
      HIPAA=['164.312(a)(1)'], SOC2=['CC6.1'], ISO27001=['A.8.3', 'A.5.15'], PCIDSS=['7.2', '1.3'], GDPR=['Art. 32', 'Art. 25'],
      NISTCSF=['PR.AA-05'], FEDRAMP=['AC-3'], CIS=['3.3'], CMMC=['AC.L2-3.1.1', 'AC.L2-3.1.22'], HITRUST=['01.v'], CCPA=['1798.150'])
topic('net_exposure', 'The control requires traffic from untrusted networks to be filtered to what is necessary; internet-wide rules defeat that boundary.',
      HIPAA=['164.312(a)(1)'], SOC2=['CC6.6'], ISO27001=['A.8.20', 'A.8.22'], PCIDSS=['1.3', '1.2'], GDPR=['Art. 32'], NISTCSF=['PR.IR-01'],
      FEDRAMP=['SC-7'], CIS=['4.4', '12.2'], CMMC=['SC.L2-3.13.1', 'SC.L2-3.13.6'], HITRUST=['01.n'])
topic('segmentation', 'The control expects systems to be separated into network zones with controlled paths; flat or publicly reachable service planes break that separation.',
      HIPAA=['164.312(e)(1)'], SOC2=['CC6.6'], ISO27001=['A.8.22', 'A.8.20'], PCIDSS=['1.4', '1.3'], GDPR=['Art. 32'], NISTCSF=['PR.IR-01'],
      FEDRAMP=['SC-7'], CIS=['12.2', '13.4'], CMMC=['SC.L2-3.13.5'], HITRUST=['01.m'])
topic('net_monitoring', 'Network activity records are the raw material the control needs to detect and investigate suspicious connections.',
      HIPAA=['164.312(b)'], SOC2=['CC7.2'], ISO27001=['A.8.16'], PCIDSS=['10.2'], GDPR=['Art. 32'], NISTCSF=['DE.CM-01'],
      FEDRAMP=['SI-4', 'AU-12'], CIS=['13.6'], CMMC=['SI.L2-3.14.6'], HITRUST=['09.ab'])
topic('waf', 'Public web applications must be shielded from common attacks at the boundary; a missing or empty WAF leaves that protection out.',
      HIPAA=['164.308(a)(1)(ii)(B)'], SOC2=['CC6.6'], ISO27001=['A.8.20'], PCIDSS=['6.4'], GDPR=['Art. 32'], NISTCSF=['PR.IR-01'],
      FEDRAMP=['SC-7'], CIS=['13.10'], CMMC=['SC.L2-3.13.1'], HITRUST=['09.m'])
topic('resilience', 'The control asks for systems to stay available and recoverable through failures; single points of failure or unprotected deletion undermine it.',
      HIPAA=['164.308(a)(7)(ii)(C)', '164.308(a)(7)(ii)(B)'], SOC2=['A1.2'], ISO27001=['A.8.14'], GDPR=['Art. 32'], NISTCSF=['PR.IR-03'],
      FEDRAMP=['CP-10'], CIS=['11.1'], CMMC=['MP.L2-3.8.9'], HITRUST=['12.c'])
topic('mfa', 'The control calls for a second authentication factor; accounts that accept a password alone do not meet it.',
      HIPAA=['164.312(d)'], SOC2=['CC6.1'], ISO27001=['A.8.5'], PCIDSS=['8.4', '8.5'], GDPR=['Art. 32'], NISTCSF=['PR.AA-03'],
      FEDRAMP=['IA-2(1)', 'IA-2(2)'], CIS=['6.5', '6.3'], CMMC=['IA.L2-3.5.3'], HITRUST=['01.q'])
topic('password', 'The control sets rules for password quality and handling; a lax policy is a direct shortfall.',
      HIPAA=['164.308(a)(5)(ii)(D)'], SOC2=['CC6.1'], ISO27001=['A.5.17'], PCIDSS=['8.3'], GDPR=['Art. 32'], NISTCSF=['PR.AA-01'],
      FEDRAMP=['IA-5(1)'], CIS=['5.2'], CMMC=['IA.L2-3.5.7'], HITRUST=['01.d'])
topic('cred_lifecycle', 'The control expects credentials to be issued, rotated and withdrawn under management; stale or never-rotated credentials show that lifecycle is not working.',
      HIPAA=['164.308(a)(4)(ii)(C)', '164.308(a)(5)(ii)(D)'], SOC2=['CC6.2'], ISO27001=['A.5.18', 'A.5.17'], PCIDSS=['8.2', '8.6'], GDPR=['Art. 32'],
      NISTCSF=['PR.AA-01'], FEDRAMP=['AC-2', 'IA-5'], CIS=['5.3'], CMMC=['IA.L2-3.5.6'], HITRUST=['01.e'])
topic('least_priv', 'The control requires access rights limited to what a role needs; broad or escalatable grants are the typical failure.',
      HIPAA=['164.308(a)(4)(ii)(B)'], SOC2=['CC6.3'], ISO27001=['A.8.2', 'A.5.15'], PCIDSS=['7.2'], GDPR=['Art. 25'], NISTCSF=['PR.AA-05'],
      FEDRAMP=['AC-6'], CIS=['5.4', '6.8'], CMMC=['AC.L2-3.1.5'], HITRUST=['01.c'])
topic('privileged_acct', 'The control restricts and monitors the most powerful accounts; routine or key-based use of them is a direct weakness.',
      HIPAA=['164.312(a)(2)(i)', '164.308(a)(4)(ii)(B)'], SOC2=['CC6.1'], ISO27001=['A.8.2'], PCIDSS=['7.2', '8.2'], GDPR=['Art. 32'],
      NISTCSF=['PR.AA-05'], FEDRAMP=['AC-6(5)', 'AC-2'], CIS=['5.4'], CMMC=['AC.L2-3.1.6'], HITRUST=['01.c'])
topic('audit_logging', 'The control requires activity on systems holding sensitive data to be recorded; a disabled or partial log source leaves events unrecorded.',
      HIPAA=['164.312(b)'], SOC2=['CC7.2'], ISO27001=['A.8.15'], PCIDSS=['10.2'], GDPR=['Art. 32'], NISTCSF=['PR.PS-04'],
      FEDRAMP=['AU-2', 'AU-12'], CIS=['8.2'], CMMC=['AU.L2-3.3.1'], HITRUST=['09.aa'])
topic('log_protection', 'The control expects audit records to be protected from reading, alteration and deletion by unauthorised parties.',
      HIPAA=['164.312(b)', '164.312(c)(1)'], SOC2=['CC7.2'], ISO27001=['A.8.15'], PCIDSS=['10.3'], GDPR=['Art. 32'], NISTCSF=['PR.PS-04'],
      FEDRAMP=['AU-9'], CIS=['8.2'], CMMC=['AU.L2-3.3.8'], HITRUST=['09.ac'])
topic('log_retention', 'The control sets how long records must be kept available for review; shorter retention loses evidence.',
      HIPAA=['164.312(b)'], SOC2=['CC7.2'], ISO27001=['A.8.15'], PCIDSS=['10.5'], GDPR=['Art. 32'], NISTCSF=['PR.PS-04'],
      FEDRAMP=['AU-11'], CIS=['8.10'], CMMC=['AU.L2-3.3.1'], HITRUST=['09.aa'])
topic('log_monitoring', 'The control needs logged events to be reviewed and alerted on; without alerts or central collection, logs are not acted upon.',
      HIPAA=['164.308(a)(1)(ii)(D)', '164.308(a)(5)(ii)(C)'], SOC2=['CC7.2', 'CC7.3'], ISO27001=['A.8.16'], PCIDSS=['10.4'], GDPR=['Art. 32'],
      NISTCSF=['DE.AE-02', 'DE.CM-01'], FEDRAMP=['AU-6', 'SI-4'], CIS=['8.11', '8.9'], CMMC=['AU.L2-3.3.5'], HITRUST=['09.ab'])
topic('threat_detection', 'The control asks for systems to be monitored for attacks and indicators of compromise; disabled detection or ignored findings defeat it.',
      HIPAA=['164.308(a)(1)(ii)(D)', '164.308(a)(6)(ii)'], SOC2=['CC7.2', 'CC7.3'], ISO27001=['A.8.16'], PCIDSS=['11.5'], GDPR=['Art. 32'],
      NISTCSF=['DE.CM-01', 'DE.AE-02'], FEDRAMP=['SI-4'], CIS=['13.1'], CMMC=['SI.L2-3.14.6', 'SI.L2-3.14.7'], HITRUST=['09.ab'])
topic('posture', 'The control expects an accurate, continuously recorded picture of assets and configurations; without it drift and unknown resources go unmanaged.',
      HIPAA=['164.308(a)(1)(ii)(A)', '164.308(a)(8)'], SOC2=['CC7.1'], ISO27001=['A.8.9', 'A.5.9'], PCIDSS=['2.2'], GDPR=['Art. 32'],
      NISTCSF=['ID.AM-08'], FEDRAMP=['CM-8', 'CA-7'], CIS=['1.1', '4.1'], CMMC=['CM.L2-3.4.1'], HITRUST=['07.a'])
topic('vuln_mgmt', 'The control requires vulnerabilities to be identified and fixed on a schedule; missing scans or open findings show the process is not running.',
      HIPAA=['164.308(a)(1)(ii)(A)', '164.308(a)(1)(ii)(B)'], SOC2=['CC7.1'], ISO27001=['A.8.8'], PCIDSS=['11.3', '6.3'], GDPR=['Art. 32'],
      NISTCSF=['ID.RA-01'], FEDRAMP=['RA-5'], CIS=['7.5', '7.6'], CMMC=['RA.L2-3.11.2', 'RA.L2-3.11.3'], HITRUST=['10.m'])
topic('patching', 'The control expects software to be kept on supported, patched versions; outdated or unmanaged versions are the gap.',
      HIPAA=['164.308(a)(1)(ii)(B)', '164.308(a)(5)(ii)(B)'], SOC2=['CC7.1'], ISO27001=['A.8.8'], PCIDSS=['6.3'], GDPR=['Art. 32'],
      NISTCSF=['PR.PS-02'], FEDRAMP=['SI-2'], CIS=['7.3', '7.4'], CMMC=['SI.L2-3.14.1'], HITRUST=['10.m'])
topic('malware', 'The control requires protection against malicious code on systems; hosts without healthy endpoint protection fail it.',
      HIPAA=['164.308(a)(5)(ii)(B)'], SOC2=['CC6.8'], ISO27001=['A.8.7'], PCIDSS=['5.2', '5.3'], GDPR=['Art. 32'], NISTCSF=['DE.CM-09'],
      FEDRAMP=['SI-3'], CIS=['10.1'], CMMC=['SI.L2-3.14.2'], HITRUST=['09.j'])
topic('backup', 'The control requires retrievable copies of data to be made and kept; missing or unprotected backups remove the ability to restore.',
      HIPAA=['164.308(a)(7)(ii)(A)', '164.308(a)(7)(ii)(B)'], SOC2=['A1.2'], ISO27001=['A.8.13'], GDPR=['Art. 32'], NISTCSF=['PR.DS-11'],
      FEDRAMP=['CP-9'], CIS=['11.2'], CMMC=['MP.L2-3.8.9'], HITRUST=['09.l'])
topic('secrets', 'The control expects authentication secrets to be kept confidential and out of code and configuration; exposed secrets are a direct failure.',
      HIPAA=['164.308(a)(5)(ii)(D)', '164.312(a)(1)'], SOC2=['CC6.1'], ISO27001=['A.5.17', 'A.8.28'], PCIDSS=['8.6', '8.3'], GDPR=['Art. 32'],
      NISTCSF=['PR.AA-01', 'PR.DS-01'], FEDRAMP=['IA-5(7)', 'IA-5'], CIS=['16.12'], CMMC=['IA.L2-3.5.10'], HITRUST=['01.d'])
topic('hardening', 'The control requires systems to run a documented secure configuration with unnecessary functions disabled; unsafe settings are baseline deviations.',
      HIPAA=['164.308(a)(1)(ii)(B)'], SOC2=['CC7.1'], ISO27001=['A.8.9'], PCIDSS=['2.2'], GDPR=['Art. 32'], NISTCSF=['PR.PS-01'],
      FEDRAMP=['CM-6', 'CM-7'], CIS=['4.1', '4.8'], CMMC=['CM.L2-3.4.2', 'CM.L2-3.4.7'], HITRUST=['10.h'])
topic('container_priv', 'The control asks for least functionality and least privilege for processes; containers running with host-level power contradict it.',
      HIPAA=['164.308(a)(4)(ii)(B)'], SOC2=['CC6.3', 'CC7.1'], ISO27001=['A.8.9', 'A.8.2'], PCIDSS=['2.2'], GDPR=['Art. 32'], NISTCSF=['PR.PS-01'],
      FEDRAMP=['CM-7', 'AC-6'], CIS=['4.1'], CMMC=['CM.L2-3.4.6', 'AC.L2-3.1.5'], HITRUST=['01.c'])
topic('k8s_authz', 'The control requires every request to be authenticated and authorised before access is granted; open or allow-all API settings bypass that.',
      HIPAA=['164.312(a)(1)', '164.312(d)'], SOC2=['CC6.1'], ISO27001=['A.8.5', 'A.8.3'], PCIDSS=['7.2', '8.2'], GDPR=['Art. 32'],
      NISTCSF=['PR.AA-03', 'PR.AA-05'], FEDRAMP=['AC-3', 'IA-2'], CIS=['6.7', '4.7'], CMMC=['AC.L2-3.1.1', 'IA.L2-3.5.2'], HITRUST=['01.q'])
topic('file_perms', 'The control expects configuration and credential files to be protected against unauthorised reading and change.',
      HIPAA=['164.312(c)(1)', '164.312(a)(1)'], SOC2=['CC6.1'], ISO27001=['A.8.3', 'A.8.9'], PCIDSS=['2.2', '7.2'], GDPR=['Art. 32'],
      NISTCSF=['PR.PS-01'], FEDRAMP=['AC-3', 'CM-6'], CIS=['3.3'], CMMC=['AC.L2-3.1.1', 'CM.L2-3.4.2'], HITRUST=['01.v'])
topic('email', 'The control expects protection of electronic messaging against spoofing, phishing and malicious content.',
      HIPAA=['164.308(a)(5)(ii)(B)'], SOC2=['CC6.8'], ISO27001=['A.8.7', 'A.5.14'], PCIDSS=['5.4'], GDPR=['Art. 32'], NISTCSF=['DE.CM-09'],
      FEDRAMP=['SI-8'], CIS=['9.5', '9.7'], CMMC=['SI.L2-3.14.2'], HITRUST=['09.v'])
topic('sharing', 'The control limits disclosure of information to authorised recipients; unrestricted external sharing allows uncontrolled disclosure.',
      HIPAA=['164.312(a)(1)'], SOC2=['CC6.7', 'C1.1'], ISO27001=['A.5.14'], PCIDSS=['7.2'], GDPR=['Art. 32', 'Art. 25'], NISTCSF=['PR.DS-01'],
      FEDRAMP=['AC-21', 'AC-3'], CIS=['3.3'], CMMC=['AC.L2-3.1.3'], HITRUST=['09.s'], CCPA=['1798.150'])
topic('sdlc', 'The control requires changes to code and pipelines to be reviewed, authorised and protected from tampering.',
      HIPAA=['164.312(c)(1)'], SOC2=['CC8.1'], ISO27001=['A.8.32', 'A.8.4'], PCIDSS=['6.5', '6.2'], GDPR=['Art. 25'], NISTCSF=['PR.PS-06'],
      FEDRAMP=['CM-3', 'SA-10'], CIS=['16.1'], CMMC=['CM.L2-3.4.3'], HITRUST=['10.k'])
topic('provenance', 'The control expects only authorised, integrity-checked software to be installed and run; unpinned or unverified artefacts break that chain.',
      HIPAA=['164.312(c)(1)'], SOC2=['CC8.1', 'CC7.1'], ISO27001=['A.8.19', 'A.8.32'], PCIDSS=['6.3'], GDPR=['Art. 32'], NISTCSF=['ID.RA-09'],
      FEDRAMP=['SI-7', 'CM-14'], CIS=['2.5'], CMMC=['CM.L2-3.4.8'], HITRUST=['10.h'])
topic('discovery', 'The control depends on knowing where sensitive information lives; without discovery it cannot be classified or protected.',
      HIPAA=['164.308(a)(1)(ii)(A)'], SOC2=['C1.1'], ISO27001=['A.5.12', 'A.8.12'], PCIDSS=['12.5'], GDPR=['Art. 30', 'Art. 32'], NISTCSF=['ID.AM-07'],
      FEDRAMP=['RA-2'], CIS=['3.2'], CMMC=['AC.L2-3.1.3'], HITRUST=['07.d'], CCPA=['1798.100'])
topic('session', 'The control requires sessions to end after inactivity or a maximum time so unattended or stolen sessions cannot be reused.',
      HIPAA=['164.312(a)(2)(iii)'], SOC2=['CC6.1'], ISO27001=['A.8.5'], PCIDSS=['8.2'], GDPR=['Art. 32'], NISTCSF=['PR.AA-03'],
      FEDRAMP=['AC-12', 'AC-11'], CIS=['4.3'], CMMC=['AC.L2-3.1.11'], HITRUST=['01.t'])
topic('contacts', 'The control expects security events to reach the people responsible for response without delay.',
      HIPAA=['164.308(a)(6)(ii)'], SOC2=['CC7.4', 'CC7.3'], ISO27001=['A.5.24'], PCIDSS=['12.10'], GDPR=['Art. 33'], NISTCSF=['RS.MA-01'],
      FEDRAMP=['IR-6'], CIS=['17.2'], CMMC=['IR.L2-3.6.2'], HITRUST=['11.a'])
topic('dns', 'The control requires name resolution and domain records to be authentic and under the organisation\'s control.',
      HIPAA=['164.312(e)(1)'], SOC2=['CC6.6'], ISO27001=['A.8.20'], GDPR=['Art. 32'], NISTCSF=['PR.IR-01'],
      FEDRAMP=['SC-20'], CIS=['4.9'], CMMC=['SC.L2-3.13.15'], HITRUST=['09.m'])
topic('identity_federation', 'The control expects identities to be managed centrally and uniquely; local, unmanaged accounts escape that management.',
      HIPAA=['164.312(a)(2)(i)', '164.308(a)(4)(ii)(C)'], SOC2=['CC6.2', 'CC6.1'], ISO27001=['A.5.16'], PCIDSS=['8.2'], GDPR=['Art. 32'],
      NISTCSF=['PR.AA-01'], FEDRAMP=['AC-2', 'IA-2'], CIS=['5.6', '6.7'], CMMC=['IA.L2-3.5.1'], HITRUST=['01.b'])
topic('capacity', 'The control expects resources to be sized and bounded so workloads stay available under load.',
      HIPAA=['164.308(a)(7)(ii)(C)'], SOC2=['A1.1'], ISO27001=['A.8.6'], GDPR=['Art. 32'], NISTCSF=['PR.IR-04'],
      FEDRAMP=['SC-5'], CIS=['4.1'], HITRUST=['09.h'])
topic('app_access', 'The control requires callers of an application interface to be identified and authorised before use.',
      HIPAA=['164.312(d)', '164.312(a)(1)'], SOC2=['CC6.1'], ISO27001=['A.8.5', 'A.8.26'], PCIDSS=['8.2', '6.2'], GDPR=['Art. 32'],
      NISTCSF=['PR.AA-03'], FEDRAMP=['IA-2', 'AC-3'], CIS=['6.7'], CMMC=['IA.L2-3.5.2'], HITRUST=['01.q'])

# NIST CSF 1.1-style ids used by Prowler nist_csf_2.0_aws -> CSF 2.0 ids in our catalog
CSF = {'am_1': 'ID.AM-01', 'am_2': 'ID.AM-02', 'am_3': 'ID.AM-03', 'am_5': 'ID.AM-05', 'ra_1': 'ID.RA-01', 'ra_2': 'ID.RA-02',
       'ra_3': 'ID.RA-03', 'ra_5': 'ID.RA-05', 'id_sc_4': 'GV.SC-07', 'ac_1': 'PR.AA-01', 'ac_3': 'PR.AA-03', 'ac_4': 'PR.AA-05',
       'ac_5': 'PR.IR-01', 'ac_6': 'PR.AA-02', 'ac_7': 'PR.AA-03', 'ds_1': 'PR.DS-01', 'ds_2': 'PR.DS-02', 'ds_3': 'ID.AM-08',
       'ds_4': 'PR.IR-04', 'ds_5': 'PR.DS-01', 'ds_6': 'PR.DS-01', 'ds_7': 'PR.IR-01', 'ds_8': 'ID.RA-09', 'ip_1': 'PR.PS-01',
       'ip_2': 'PR.PS-06', 'ip_3': 'PR.PS-01', 'ip_4': 'PR.DS-11', 'ip_9': 'ID.IM-04', 'ip_12': 'ID.RA-01', 'pt_1': 'PR.PS-04',
       'pt_3': 'PR.AA-05', 'pt_4': 'PR.IR-01', 'pt_5': 'PR.IR-03', 'ae_2': 'DE.AE-02', 'ae_3': 'DE.AE-03', 'ae_4': 'DE.AE-04',
       'ae_5': 'DE.AE-08', 'cm_1': 'DE.CM-01', 'cm_2': 'DE.CM-02', 'cm_3': 'DE.CM-03', 'cm_4': 'DE.CM-09', 'cm_5': 'DE.CM-09',
       'cm_6': 'DE.CM-06', 'cm_7': 'DE.CM-01', 'rp_1': 'RS.MA-01', 'rc_rp_1': 'RC.RP-01'}
