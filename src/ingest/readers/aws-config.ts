/**
 * AWS Config rule evaluations: GetComplianceDetailsByConfigRule and GetComplianceDetailsByResource
 * (`EvaluationResults[]`, one per rule and resource), conformance packs
 * (`ConformancePackRuleEvaluationResults[]`), and DescribeComplianceByConfigRule
 * (`ComplianceByConfigRules[]`, one verdict per rule without resources). The rule is the Config
 * rule's name; names Security Hub gave its own rules (securityhub-<managed-rule>-<suffix>) keep
 * the managed rule's name as an alternate.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { outcomeFromStatus, timestampFrom } from '../normalise.js';
import { at, isObject, Shape, text, type Json } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('aws-config');

const LISTS = ['EvaluationResults', 'ConformancePackRuleEvaluationResults', 'ComplianceByConfigRules'] as const;

export function isAwsConfig(doc: Json): boolean {
  return isObject(doc) && LISTS.some((list) => Array.isArray(doc[list]));
}

/** Config's verdicts: COMPLIANT, NON_COMPLIANT, NOT_APPLICABLE, INSUFFICIENT_DATA. */
function outcomeOf(word: string): NormalisedResult['outcome'] {
  return outcomeFromStatus(word);
}

/** A Security Hub–created rule name (securityhub-s3-bucket-public-read-prohibited-a1b2c3) → the managed rule's name. */
function managedRuleName(name: string): string | null {
  const match = /^securityhub-(.+?)(-[0-9a-z]{6,8})?$/i.exec(name);
  return match ? match[1] : null;
}

export function readAwsConfig(doc: Json): ReadOutcome {
  const root = shape.object(doc, '');
  const list = LISTS.find((name) => Array.isArray(root[name]))!;
  const results: NormalisedResult[] = shape.array(root[list], `/${list}`).map((value, index) => {
    const pointer = at(`/${list}`, index);
    const item = shape.object(value, pointer);
    if (list === 'ComplianceByConfigRules') {
      const name = shape.string(item.ConfigRuleName, at(pointer, 'ConfigRuleName'));
      const compliance = shape.object(item.Compliance, at(pointer, 'Compliance'));
      const verdict = shape.string(compliance.ComplianceType, at(at(pointer, 'Compliance'), 'ComplianceType'));
      const managed = managedRuleName(name);
      return result({
        tool: 'aws-config',
        tool_version: null,
        rule_id: name,
        raw_status: verdict,
        outcome: outcomeOf(verdict),
        provider: 'aws',
        rule_alternates: managed ? [managed] : undefined,
      });
    }
    const identifier = shape.object(item.EvaluationResultIdentifier, at(pointer, 'EvaluationResultIdentifier'));
    const qualifier = shape.object(identifier.EvaluationResultQualifier, at(at(pointer, 'EvaluationResultIdentifier'), 'EvaluationResultQualifier'));
    const name = shape.string(qualifier.ConfigRuleName, at(at(at(pointer, 'EvaluationResultIdentifier'), 'EvaluationResultQualifier'), 'ConfigRuleName'));
    const verdict = shape.string(item.ComplianceType, at(pointer, 'ComplianceType'));
    const managed = managedRuleName(name);
    return result({
      tool: 'aws-config',
      tool_version: null,
      rule_id: name,
      rule_title: text(item.Annotation) ?? '',
      resource: text(qualifier.ResourceId) ?? '',
      raw_status: verdict,
      outcome: outcomeOf(verdict),
      observed_at: timestampFrom(item.ResultRecordedTime) ?? timestampFrom(identifier.OrderingTimestamp),
      rule_alternates: managed ? [managed] : undefined,
      provider: 'aws',
      resource_type: text(qualifier.ResourceType) ?? undefined,
    });
  });
  return { format: 'aws-config', tool: 'aws-config', tool_version: null, results };
}
