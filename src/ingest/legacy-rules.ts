/**
 * Rule ids no registry rule carries but whose condition the registry holds under another id:
 * older ids of the same tool (Prowler 2's check11 and extra72, Prowler 3 checks renamed or split
 * into several), the legacy per-standard ids of Security Hub's CIS AWS Foundations 1.2.0
 * standard, and other tools' checks of the same condition (tfsec's rules are Trivy's; Kubescape's
 * controls that are one Trivy check; Kubescape's CIS Kubernetes controls are kube-bench's
 * recommendations). One id may name several successors: a result then reaches each.
 *
 * Sources: Prowler's own v2-to-v3 check mapping (docs/user-guide/tutorials/v2_to_v3_checks_mapping
 * in prowler-cloud/prowler, reversed; check13 and check122, absent there, from Prowler's CIS 1.4
 * requirements 1.12 and 1.16, the same conditions); Prowler 2's checks numbered after CIS AWS
 * Foundations 1.2.0 (check11 is 1.1), the numbering Security Hub's 1.2.0 RuleIds keep; Kubescape
 * and Trivy check titles. test/ingest/rule-resolution.test.ts checks that every successor
 * resolves in the compiled registry.
 */

export interface RuleRef {
  tool: string;
  rule_id: string;
}

/** Prowler 2 check id → the Prowler 3+ checks that replaced it. */
export const PROWLER_V2_CHECKS: Readonly<Record<string, readonly string[]>> = {
  check11: ['iam_avoid_root_usage'],
  check12: ['iam_user_mfa_enabled_console_access'],
  check13: ['iam_user_accesskey_unused', 'iam_user_console_access_unused'],
  check14: ['iam_rotate_access_key_90_days'],
  check15: ['iam_password_policy_uppercase'],
  check16: ['iam_password_policy_lowercase'],
  check17: ['iam_password_policy_symbol'],
  check18: ['iam_password_policy_number'],
  check19: ['iam_password_policy_minimum_length_14'],
  check21: ['cloudtrail_multi_region_enabled'],
  check22: ['cloudtrail_log_file_validation_enabled'],
  check23: ['cloudtrail_logs_s3_bucket_is_not_publicly_accessible'],
  check24: ['cloudtrail_cloudwatch_logging_enabled'],
  check25: ['config_recorder_all_regions_enabled'],
  check26: ['cloudtrail_logs_s3_bucket_access_logging_enabled'],
  check27: ['cloudtrail_kms_encryption_enabled'],
  check28: ['kms_cmk_rotation_enabled'],
  check29: ['vpc_flow_logs_enabled'],
  check31: ['cloudwatch_log_metric_filter_unauthorized_api_calls'],
  check32: ['cloudwatch_log_metric_filter_sign_in_without_mfa'],
  check33: ['cloudwatch_log_metric_filter_root_usage'],
  check34: ['cloudwatch_log_metric_filter_policy_changes'],
  check35: ['cloudwatch_log_metric_filter_and_alarm_for_cloudtrail_configuration_changes_enabled'],
  check36: ['cloudwatch_log_metric_filter_authentication_failures'],
  check37: ['cloudwatch_log_metric_filter_disable_or_scheduled_deletion_of_kms_cmk'],
  check38: ['cloudwatch_log_metric_filter_for_s3_bucket_policy_changes'],
  check39: ['cloudwatch_log_metric_filter_and_alarm_for_aws_config_configuration_changes_enabled'],
  check41: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22'],
  check42: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_3389'],
  check43: ['ec2_securitygroup_default_restrict_traffic'],
  check44: ['vpc_peering_routing_tables_with_least_privilege'],
  check45: ['ec2_networkacl_allow_ingress_tcp_port_22'],
  check46: ['ec2_networkacl_allow_ingress_tcp_port_3389'],
  check110: ['iam_password_policy_reuse_24'],
  check111: ['iam_password_policy_expires_passwords_within_90_days_or_less'],
  check112: ['iam_no_root_access_key'],
  check113: ['iam_root_mfa_enabled'],
  check114: ['iam_root_hardware_mfa_enabled'],
  check115: ['account_security_questions_are_registered_in_the_aws_account'],
  check116: ['iam_policy_attached_only_to_group_or_roles'],
  check117: ['account_maintain_current_contact_details'],
  check118: ['account_security_contact_information_is_registered'],
  check119: ['ec2_instance_profile_attached'],
  check120: ['iam_support_role_created'],
  check121: ['iam_user_no_setup_initial_access_key'],
  check122: ['iam_aws_attached_policy_no_administrative_privileges', 'iam_customer_attached_policy_no_administrative_privileges'],
  check310: ['cloudwatch_log_metric_filter_security_group_changes'],
  check311: ['cloudwatch_changes_to_network_acls_alarm_configured'],
  check312: ['cloudwatch_changes_to_network_gateways_alarm_configured'],
  check313: ['cloudwatch_changes_to_network_route_tables_alarm_configured'],
  check314: ['cloudwatch_changes_to_vpcs_alarm_configured'],
  extra71: ['iam_administrator_access_with_mfa'],
  extra72: ['ec2_ebs_public_snapshot'],
  extra73: ['s3_bucket_public_access'],
  extra74: ['ec2_securitygroup_allow_ingress_from_internet_to_any_port'],
  extra75: ['ec2_securitygroup_not_used'],
  extra76: ['ec2_ami_public'],
  extra77: ['ecr_repositories_not_publicly_accessible'],
  extra78: ['rds_instance_no_public_access'],
  extra79: ['elb_internet_facing', 'elbv2_internet_facing'],
  extra710: ['ec2_instance_public_ip'],
  extra711: ['redshift_cluster_public_access'],
  extra712: ['macie_is_enabled'],
  extra713: ['guardduty_is_enabled'],
  extra714: ['cloudfront_distributions_logging_enabled'],
  extra715: ['opensearch_service_domains_cloudwatch_logging_enabled'],
  extra716: ['opensearch_service_domains_not_publicly_accessible'],
  extra717: ['elb_logging_enabled', 'elbv2_logging_enabled'],
  extra718: ['s3_bucket_server_access_logging_enabled'],
  extra719: ['route53_public_hosted_zones_cloudwatch_logging_enabled'],
  extra720: ['awslambda_function_invoke_api_operations_cloudtrail_logging_enabled'],
  extra721: ['redshift_cluster_audit_logging'],
  extra722: ['apigateway_restapi_logging_enabled'],
  extra723: ['rds_snapshots_public_access'],
  extra724: ['acm_certificates_transparency_logs_enabled'],
  extra725: ['cloudtrail_s3_dataevents_write_enabled'],
  extra726: ['trustedadvisor_errors_and_warnings'],
  extra727: ['sqs_queues_not_publicly_accessible'],
  extra728: ['sqs_queues_server_side_encryption_enabled'],
  extra729: ['ec2_ebs_volume_encryption'],
  extra730: ['acm_certificates_expiration_check'],
  extra731: ['sns_topics_not_publicly_accessible'],
  extra732: ['cloudfront_distributions_geo_restrictions_enabled'],
  extra733: ['iam_check_saml_providers_sts'],
  extra734: ['s3_bucket_default_encryption'],
  extra735: ['rds_instance_storage_encrypted'],
  extra736: ['kms_key_not_publicly_accessible'],
  extra738: ['cloudfront_distributions_https_enabled'],
  extra739: ['rds_instance_backup_enabled'],
  extra740: ['ec2_ebs_snapshots_encrypted'],
  extra741: ['ec2_instance_secrets_user_data'],
  extra742: ['cloudformation_stack_outputs_find_secrets'],
  extra743: ['apigateway_restapi_client_certificate_enabled'],
  extra744: ['apigateway_restapi_waf_acl_attached'],
  extra745: ['apigateway_restapi_public'],
  extra746: ['apigateway_restapi_authorizers_enabled'],
  extra747: ['rds_instance_integration_cloudwatch_logs'],
  extra748: ['ec2_securitygroup_allow_ingress_from_internet_to_all_ports'],
  extra749: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_oracle_1521_2483'],
  extra750: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_mysql_3306'],
  extra751: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_postgres_5432'],
  extra752: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_redis_6379'],
  extra753: ['ec2_securitygroup_allow_ingress_from_internet_to_port_mongodb_27017_27018'],
  extra754: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_cassandra_7199_9160_8888'],
  extra755: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_memcached_11211'],
  extra758: ['ec2_instance_older_than_specific_days'],
  extra759: ['awslambda_function_no_secrets_in_variables'],
  extra760: ['awslambda_function_no_secrets_in_code'],
  extra761: ['ec2_ebs_default_encryption'],
  extra762: ['awslambda_function_using_supported_runtimes'],
  extra763: ['s3_bucket_object_versioning'],
  extra764: ['s3_bucket_secure_transport_policy'],
  extra765: ['ecr_repositories_scan_images_on_push_enabled'],
  extra767: ['cloudfront_distributions_field_level_encryption_enabled'],
  extra768: ['ecs_task_definitions_no_environment_secrets'],
  extra769: ['accessanalyzer_enabled_without_findings'],
  extra770: ['ec2_instance_internet_facing_with_instance_profile'],
  extra771: ['s3_bucket_policy_public_write_access'],
  extra773: ['cloudfront_distributions_using_waf'],
  extra775: ['autoscaling_find_secrets_ec2_launch_configuration'],
  extra776: ['ecr_repositories_scan_vulnerabilities_in_latest_image'],
  extra777: ['ec2_securitygroup_with_many_ingress_egress_rules'],
  extra778: ['ec2_securitygroup_allow_wide_open_public_ipv4'],
  extra779: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_elasticsearch_kibana_9200_9300_5601'],
  extra780: ['opensearch_service_domains_use_cognito_authentication_for_kibana'],
  extra781: ['opensearch_service_domains_encryption_at_rest_enabled'],
  extra782: ['opensearch_service_domains_node_to_node_encryption_enabled'],
  extra783: ['opensearch_service_domains_https_communications_enforced'],
  extra784: ['opensearch_service_domains_internal_user_database_enabled'],
  extra785: ['opensearch_service_domains_updated_to_the_latest_service_software_version'],
  extra786: ['ec2_instance_imdsv2_enabled'],
  extra789: ['vpc_endpoint_connections_trust_boundaries'],
  extra790: ['vpc_endpoint_services_allowed_principals_trust_boundaries'],
  extra791: ['cloudfront_distributions_using_deprecated_ssl_protocols'],
  extra792: ['elb_insecure_ssl_ciphers', 'elbv2_insecure_ssl_ciphers'],
  extra793: ['elb_ssl_listeners', 'elbv2_ssl_listeners'],
  extra794: ['eks_control_plane_logging_all_types_enabled'],
  extra795: ['eks_endpoints_not_publicly_accessible'],
  extra796: ['eks_control_plane_endpoint_access_restricted'],
  extra797: ['eks_cluster_kms_cmk_encryption_in_secrets_enabled'],
  extra798: ['awslambda_function_not_publicly_accessible'],
  extra799: ['securityhub_enabled'],
  extra7100: ['iam_no_custom_policy_permissive_role_assumption'],
  extra7101: ['opensearch_service_domains_audit_logging_enabled'],
  extra7102: ['ec2_elastic_ip_shodan'],
  extra7103: ['sagemaker_notebook_instance_root_access_disabled'],
  extra7104: ['sagemaker_notebook_instance_vpc_settings_configured'],
  extra7105: ['sagemaker_models_network_isolation_enabled'],
  extra7106: ['sagemaker_models_vpc_settings_configured'],
  extra7107: ['sagemaker_training_jobs_intercontainer_encryption_enabled'],
  extra7108: ['sagemaker_training_jobs_volume_and_output_encryption_enabled'],
  extra7109: ['sagemaker_training_jobs_network_isolation_enabled'],
  extra7110: ['sagemaker_training_jobs_vpc_settings_configured'],
  extra7111: ['sagemaker_notebook_instance_without_direct_internet_access_configured'],
  extra7112: ['sagemaker_notebook_instance_encryption_enabled'],
  extra7113: ['rds_instance_deletion_protection'],
  extra7114: ['glue_development_endpoints_s3_encryption_enabled'],
  extra7115: ['glue_database_connections_ssl_enabled'],
  extra7116: ['glue_data_catalogs_metadata_encryption_enabled'],
  extra7117: ['glue_data_catalogs_connection_passwords_encryption_enabled'],
  extra7118: ['glue_etl_jobs_amazon_s3_encryption_enabled'],
  extra7119: ['glue_development_endpoints_cloudwatch_logs_encryption_enabled'],
  extra7120: ['glue_etl_jobs_cloudwatch_logs_encryption_enabled'],
  extra7121: ['glue_development_endpoints_job_bookmark_encryption_enabled'],
  extra7122: ['glue_etl_jobs_job_bookmark_encryption_enabled'],
  extra7123: ['iam_user_two_active_access_key'],
  extra7124: ['ec2_instance_managed_by_ssm'],
  extra7125: ['iam_user_hardware_mfa_enabled'],
  extra7126: ['kms_cmk_are_used'],
  extra7127: ['ssm_managed_compliant_patching'],
  extra7128: ['dynamodb_tables_kms_cmk_encryption_enabled'],
  extra7129: ['elbv2_waf_acl_attached'],
  extra7130: ['sns_topics_kms_encryption_at_rest_enabled'],
  extra7131: ['rds_instance_minor_version_upgrade_enabled'],
  extra7132: ['rds_instance_enhanced_monitoring_enabled'],
  extra7133: ['rds_instance_multi_az'],
  extra7134: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_ftp_port_20_21'],
  extra7135: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_kafka_9092'],
  extra7136: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_telnet_23'],
  extra7137: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_sql_server_1433_1434'],
  extra7138: ['ec2_networkacl_allow_ingress_any_port'],
  extra7139: ['guardduty_no_high_severity_findings'],
  extra7140: ['ssm_documents_set_as_public'],
  extra7141: ['ssm_document_secrets'],
  extra7143: ['efs_not_publicly_accessible'],
  extra7144: ['cloudwatch_cross_account_sharing_disabled'],
  extra7146: ['ec2_elastic_ip_unassigned'],
  extra7147: ['glacier_vaults_policy_public_access'],
  extra7148: ['efs_have_backup_enabled'],
  extra7149: ['redshift_cluster_automated_snapshot'],
  extra7150: ['elbv2_deletion_protection'],
  extra7151: ['dynamodb_tables_pitr_enabled'],
  extra7152: ['route53_domains_privacy_protection_enabled'],
  extra7153: ['route53_domains_transferlock_enabled'],
  extra7154: ['cloudformation_stacks_termination_protection_enabled'],
  extra7155: ['elbv2_desync_mitigation_mode'],
  extra7156: ['apigatewayv2_api_access_logging_enabled'],
  extra7157: ['apigatewayv2_api_authorizers_enabled'],
  extra7158: ['elbv2_listeners_underneath'],
  extra7160: ['redshift_cluster_automatic_upgrades'],
  extra7161: ['efs_encryption_at_rest_enabled'],
  extra7162: ['cloudwatch_log_group_retention_policy_specific_days_enabled'],
  extra7163: ['secretsmanager_automatic_rotation_enabled'],
  extra7164: ['cloudwatch_log_group_kms_encryption_enabled'],
  extra7165: ['dynamodb_accelerator_cluster_encryption_enabled'],
  extra7166: ['shield_advanced_protection_in_associated_elastic_ips'],
  extra7167: ['shield_advanced_protection_in_cloudfront_distributions'],
  extra7168: ['shield_advanced_protection_in_route53_hosted_zones'],
  extra7169: ['shield_advanced_protection_in_global_accelerators'],
  extra7170: ['shield_advanced_protection_in_internet_facing_load_balancers'],
  extra7171: ['shield_advanced_protection_in_classic_load_balancers'],
  extra7172: ['s3_bucket_acl_prohibited'],
  extra7173: ['ec2_securitygroup_from_launch_wizard'],
  extra7174: ['codebuild_project_older_90_days'],
  extra7175: ['codebuild_project_user_controlled_buildspec'],
  extra7176: ['emr_cluster_master_nodes_no_public_ip'],
  extra7177: ['emr_cluster_publicly_accesible'],
  extra7178: ['emr_cluster_account_public_block_enabled'],
  extra7179: ['awslambda_function_url_public'],
  extra7180: ['awslambda_function_url_cors_policy'],
  extra7181: ['directoryservice_directory_log_forwarding_enabled'],
  extra7182: ['directoryservice_directory_monitor_notifications'],
  extra7183: ['directoryservice_ldap_certificate_expiration'],
  extra7184: ['directoryservice_directory_snapshots_limit'],
  extra7185: ['iam_policy_allows_privilege_escalation'],
  extra7186: ['s3_account_level_public_access_blocks'],
  extra7187: ['workspaces_volume_encryption_enabled'],
  extra7188: ['directoryservice_radius_server_security_protocol'],
  extra7189: ['directoryservice_supported_mfa_radius_enabled'],
  extra7190: ['appstream_fleet_maximum_session_duration'],
  extra7191: ['appstream_fleet_session_disconnect_timeout'],
  extra7192: ['appstream_fleet_session_idle_disconnect_timeout'],
  extra7193: ['appstream_fleet_default_internet_access_disabled'],
  extra7194: ['ecr_repositories_lifecycle_policy_enabled'],
  extra7195: ['codeartifact_packages_external_public_publishing_disabled'],
  extra7196: ['cloudtrail_s3_dataevents_read_enabled'],
  extra7197: ['cloudwatch_log_metric_filter_aws_organizations_changes'],
  extra7199: ['iam_no_expired_server_certificates_stored'],
  extra7200: ['s3_bucket_no_mfa_delete'],
  extra7201: ['iam_role_cross_service_confused_deputy_prevention'],
};

/** Prowler 3+ checks renamed or split upstream → their successors. */
export const PROWLER_RENAMED_CHECKS: Readonly<Record<string, readonly string[]>> = {
  // Split into one check per credential type, with the threshold as configuration (CIS 1.4 1.12).
  iam_disable_30_days_credentials: ['iam_user_accesskey_unused', 'iam_user_console_access_unused'],
  iam_disable_45_days_credentials: ['iam_user_accesskey_unused', 'iam_user_console_access_unused'],
  iam_disable_90_days_credentials: ['iam_user_accesskey_unused', 'iam_user_console_access_unused'],
  // Prowler 2's extra74 ("no security groups without ingress filtering being used").
  ec2_securitygroup_in_use_without_ingress_filtering: ['ec2_securitygroup_allow_ingress_from_internet_to_any_port'],
  ec2_securitygroup_allow_ingress_from_internet_to_tcp_ftp_port_20_21: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_ftp_20_21'],
  ec2_securitygroup_allow_ingress_from_internet_to_port_mongodb_27017_27018: ['ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_mongodb_27017_27018'],
  eks_endpoints_not_publicly_accessible: ['eks_cluster_not_publicly_accessible'],
  eks_control_plane_endpoint_access_restricted: ['eks_cluster_not_publicly_accessible'],
};

/**
 * Kubescape controls that check exactly one Trivy Kubernetes check's condition. Controls that
 * combine several conditions (C-0009 CPU and memory limits, C-0038 host PID or IPC) are left
 * out: a pass of the combination is a pass of each, but a failure is not a failure of each.
 */
export const KUBESCAPE_TRIVY_CHECKS: Readonly<Record<string, string>> = {
  'C-0002': 'KSV053',
  'C-0013': 'KSV012',
  'C-0016': 'KSV001',
  'C-0017': 'KSV014',
  'C-0034': 'KSV036',
  'C-0041': 'KSV009',
  'C-0044': 'KSV024',
  'C-0048': 'KSV023',
  'C-0057': 'KSV017',
  'C-0061': 'KSV110',
  'C-0074': 'KSV006',
  'C-0270': 'KSV011',
  'C-0271': 'KSV018',
};

/** Security Hub's CIS 1.2.0 ids: the bare RuleId (1.13), or a per-standard path or ARN ending in it. */
function cis120Recommendation(id: string): string | null {
  const trimmed = id.trim();
  const bare = /^(\d)\.(\d{1,2})$/.exec(trimmed);
  const pathed = /cis-aws-foundations-benchmark\/v\/1\.2\.0\/(?:rule\/)?(\d)\.(\d{1,2})$/.exec(trimmed);
  const match = bare ?? pathed;
  return match ? `check${match[1]}${match[2]}` : null;
}

/** A Prowler check's successors: a Prowler 2 id's Prowler 3 checks, each under its current name when it was renamed since. */
function prowlerSuccessors(id: string): string[] {
  const key = id
    .trim()
    .toLowerCase()
    .replace(/^prowler-/, '');
  const successors = [...(PROWLER_V2_CHECKS[key] ?? []), ...(PROWLER_RENAMED_CHECKS[key] ?? [])];
  return [...new Set(successors.flatMap((check) => PROWLER_RENAMED_CHECKS[check] ?? [check]))];
}

/** The rules of other ids or tools that check the same condition as a tool's rule; empty when there are none. */
export function equivalentRules(tool: string, ruleId: string): RuleRef[] {
  switch (tool) {
    case 'prowler':
      return prowlerSuccessors(ruleId).map((rule_id) => ({ tool: 'prowler', rule_id }));
    case 'aws-security-hub': {
      const check = cis120Recommendation(ruleId);
      return check ? prowlerSuccessors(check).map((rule_id) => ({ tool: 'prowler', rule_id })) : [];
    }
    case 'tfsec':
      return [{ tool: 'trivy', rule_id: ruleId }];
    case 'kubescape': {
      const trivy = KUBESCAPE_TRIVY_CHECKS[ruleId.trim().toUpperCase()];
      if (trivy) return [{ tool: 'trivy', rule_id: trivy }];
      const cis = /^CIS-(\d+(?:\.\d+)+)$/i.exec(ruleId.trim());
      return cis ? [{ tool: 'kube-bench', rule_id: cis[1] }] : [];
    }
    default:
      return [];
  }
}

/** Every successor the tables name, for the test that keeps them in step with the registry. */
export function allEquivalentRules(): RuleRef[] {
  return [
    ...Object.keys(PROWLER_V2_CHECKS)
      .flatMap(prowlerSuccessors)
      .map((rule_id) => ({ tool: 'prowler', rule_id })),
    ...Object.values(PROWLER_RENAMED_CHECKS)
      .flat()
      .map((rule_id) => ({ tool: 'prowler', rule_id })),
    ...Object.values(KUBESCAPE_TRIVY_CHECKS).map((rule_id) => ({ tool: 'trivy', rule_id })),
  ];
}
