/**
 * Checkov check names that the reference table (../shared/reference/tools/checkov_checks.json)
 * records cut short: its extraction stopped a `name = "..."` literal at the first quote mark
 * (`'HTTP Version'`, `isn't`, an escaped `\"`) or at a line continuation, so "Ensure that" named
 * fifteen unrelated Azure checks at once. The facts extraction (facts.ts) replaces such a name
 * with the check's full name, read from the check's own source at the reference's Checkov commit:
 * the `name` of the check's class in the source file the reference read, surrounding spaces
 * trimmed (three checks, CKV2_GCP_1, CKV_AZURE_77 and CKV_TC_4, are complete but end in a space).
 * A correction applies only while the reference still holds a fragment of it.
 */

export const CHECKOV_NAME_CORRECTIONS: Readonly<Record<string, string>> = {
  CKV2_GCP_1: 'Ensure GKE clusters are not running using the Compute Engine default service account',
  CKV_ANSIBLE_1: "Ensure that certificate validation isn't disabled with uri",
  CKV_ANSIBLE_2: "Ensure that certificate validation isn't disabled with get_url",
  CKV_ANSIBLE_3: "Ensure that certificate validation isn't disabled with yum",
  CKV_ANSIBLE_4: "Ensure that SSL validation isn't disabled with yum",
  CKV_AWS_1: 'Ensure IAM policies that allow full "*-*" administrative privileges are not created',
  CKV_AWS_49: 'Ensure no IAM policies documents allow "*" as a statement\'s actions',
  CKV_AWS_62: 'Ensure no IAM policies that allow full "*-*" administrative privileges are not created',
  CKV_AWS_63: 'Ensure no IAM policies documents allow "*" as a statement\'s actions',
  CKV_AWS_295: "Ensure DataSync Location Object Storage doesn't expose secrets",
  CKV_AWS_346: 'Ensure Network Firewall Policy defines an encryption configuration that uses a customer managed Key (CMK)',
  CKV_AWS_355: 'Ensure no IAM policies documents allow "*" as a statement\'s resource for restrictable actions',
  CKV_AWS_356: 'Ensure no IAM policies documents allow "*" as a statement\'s resource for restrictable actions',
  CKV_AWS_389: "Ensure AWS Auto Scaling group launch configuration doesn't have public IP address assignment enabled",
  CKV_AZURE_3: "Ensure that 'supportsHttpsTrafficOnly' is set to 'true'",
  CKV_AZURE_12: "Ensure that Network Security Group Flow Log retention period is 'greater than 90 days'",
  CKV_AZURE_17: "Ensure the web app has 'Client Certificates (Incoming client certificates)' set",
  CKV_AZURE_18: "Ensure that 'HTTP Version' is the latest if used to run the web app",
  CKV_AZURE_20: "Ensure that security contact 'Phone number' is set",
  CKV_AZURE_21: "Ensure that 'Send email notification for high severity alerts' is set to 'On'",
  CKV_AZURE_22: "Ensure that 'Send email notification for high severity alerts' is set to 'On'",
  CKV_AZURE_23: "Ensure that 'Auditing' is set to 'Enabled' for SQL servers",
  CKV_AZURE_24: "Ensure that 'Auditing' Retention is 'greater than 90 days' for SQL servers",
  CKV_AZURE_25: "Ensure that 'Threat Detection types' is set to 'All'",
  CKV_AZURE_26: "Ensure that 'Send Alerts To' is enabled for MSSQL servers",
  CKV_AZURE_27: "Ensure that 'Email service and co-administrators' is 'Enabled' for MSSQL servers",
  CKV_AZURE_28: "Ensure 'Enforce SSL connection' is set to 'ENABLED' for MySQL Database Server",
  CKV_AZURE_29: "Ensure 'Enforce SSL connection' is set to 'ENABLED' for PostgreSQL Database Server",
  CKV_AZURE_30: "Ensure server parameter 'log_checkpoints' is set to 'ON' for PostgreSQL Database Server",
  CKV_AZURE_31: "Ensure configuration 'log_connections' is set to 'ON' for PostgreSQL Database Server",
  CKV_AZURE_32: "Ensure server parameter 'connection_throttling' is set to 'ON' for PostgreSQL Database Server",
  CKV_AZURE_34: "Ensure that 'Public access level' is set to Private for blob containers",
  CKV_AZURE_36: "Ensure 'Trusted Microsoft Services' is enabled for Storage Account access",
  CKV_AZURE_47: "Ensure 'Enforce SSL connection' is set to 'ENABLED' for MariaDB servers",
  CKV_AZURE_48: "Ensure 'public network access enabled' is set to 'False' for MariaDB servers",
  CKV_AZURE_53: "Ensure 'public network access enabled' is set to 'False' for mySQL servers",
  CKV_AZURE_67: "Ensure that 'HTTP Version' is the latest, if used to run the Function app",
  CKV_AZURE_77: 'Ensure that UDP Services are restricted from the Internet',
  CKV_AZURE_80: "Ensure that 'Net Framework' version is the latest, if used as a part of the web app",
  CKV_AZURE_81: "Ensure that 'PHP version' is the latest, if used to run the web app",
  CKV_AZURE_82: "Ensure that 'Python version' is the latest, if used to run the web app",
  CKV_AZURE_83: "Ensure that 'Java version' is the latest, if used to run the web app",
  CKV_AZURE_114: 'Ensure that key vault secrets have "content_type" set',
  CKV_AZURE_122: 'Ensure that Application Gateway uses WAF in "Detection" or "Prevention" modes',
  CKV_AZURE_123: 'Ensure that Azure Front Door uses WAF in "Detection" or "Prevention" modes',
  CKV_AZURE_146: "Ensure server parameter 'log_retention' is set to 'ON' for PostgreSQL Database Server",
  CKV_AZURE_184: "Ensure 'local_auth_enabled' is set to 'False'",
  CKV_AZURE_185: "Ensure 'Public Access' is not Enabled for App configuration",
  CKV_AZURE_204: "Ensure 'public network access enabled' is set to 'False' for Azure Service Bus",
  CKV_AZURE_224: 'Ensure that the Ledger feature is enabled on database that requires cryptographic proof and nonrepudiation of data integrity',
  CKV_AZURE_227: 'Ensure that the AKS cluster encrypt temp disks, caches, and data flows between Compute and Storage resources',
  CKV_AZURE_248: "Ensure that if Azure Batch account public network access in case 'enabled' then its account access must be 'deny'",
  CKV_DOCKER_9: "Ensure that APT isn't used",
  CKV_GCP_9: "Ensure 'Automatic node repair' is enabled for Kubernetes Clusters",
  CKV_GCP_10: "Ensure 'Automatic node upgrade' is enabled for Kubernetes Clusters",
  CKV_GCP_32: "Ensure 'Block Project-wide SSH keys' is enabled for VM instances",
  CKV_GCP_35: "Ensure 'Enable connecting to serial ports' is not enabled for VM Instance",
  CKV_GCP_123: "GKE Don't Use NodePools in the Cluster configuration",
  CKV_GHA_1: "Ensure ACTIONS_ALLOW_UNSECURE_COMMANDS isn't true on environment variables",
  CKV_GHA_7:
    'The build output cannot be affected by user parameters other than the build entry point and the top-level source location. GitHub Actions workflow_dispatch inputs MUST be empty.',
  CKV_NCP_16: "Ensure Load Balancer isn't exposed to the internet",
  CKV_NCP_20: 'Ensure Routing Table associated with Web tier subnet have the default route (0.0.0.0/0) defined to allow connectivity',
  CKV_OPENAPI_2: "Ensure that if the security scheme is not of type 'oauth2', the array value must be empty - version 2.0 files",
  CKV_OPENAPI_3: "Ensure that security schemes don't allow cleartext credentials over unencrypted channel - version 3.x.y files",
  CKV_OPENAPI_7: 'Ensure that the path scheme does not support unencrypted HTTP connection where all transmissions are open to interception- version 2.0 files',
  CKV_OPENAPI_8: "Ensure that security is not using 'password' flow in OAuth2 authentication - version 2.0 files",
  CKV_OPENAPI_10: "Ensure that operation object does not use 'password' flow in OAuth2 authentication - version 2.0 files",
  CKV_OPENAPI_11: "Ensure that operation object does not use 'password' flow in OAuth2 authentication - version 2.0 files",
  CKV_OPENAPI_14: "Ensure that operation objects do not use 'implicit' flow, which is deprecated - version 2.0 files",
  CKV_OPENAPI_16: "Ensure that operation objects have 'produces' field defined for GET operations - version 2.0 files",
  CKV_OPENAPI_17: "Ensure that operation objects have 'consumes' field defined for PUT, POST and PATCH operations - version 2.0 files",
  CKV_OPENAPI_18: "Ensure that global schemes use 'https' protocol instead of 'http'- version 2.0 files",
  CKV_TC_4: 'Ensure Tencent Cloud CVM instances do not use the default security group',
};

/**
 * A name that ends where a cut leaves it: on a space or a backslash, on a word that cannot end a
 * check name ("Ensure that", "... have", "does not use"), or on the stem of a contraction ("isn",
 * "Don"). A guard, not a proof: a cut right after a noun, trimmed, passes it.
 */
export function looksCut(name: string): boolean {
  return (
    /\s$|\\$/.test(name) ||
    /\b(that|the|a|an|to|of|is|are|has|have|not use|uses|using|allow|with|for|and|or|if|in case|ensure|be|from|as|at)$/i.test(name) ||
    /\b(isn|doesn|don|aren|wasn|weren|won|can|shouldn|hasn|haven|didn)$/i.test(name)
  );
}

/** The check's name: the correction where the reference holds a fragment of it, else the reference name. */
export function checkovName(id: string, referenceName: string): string {
  const corrected = CHECKOV_NAME_CORRECTIONS[id];
  if (corrected === undefined || corrected === referenceName) return referenceName;
  const fragment = referenceName.trimEnd().replace(/\\$/, '');
  if (!corrected.startsWith(fragment)) {
    throw new Error(`Checkov ${id}: the reference name '${referenceName}' is no fragment of the correction '${corrected}'; review CHECKOV_NAME_CORRECTIONS`);
  }
  return corrected;
}
