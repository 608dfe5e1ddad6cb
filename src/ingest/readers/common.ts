import type { NormalisedResult } from '../model.js';

/** A result with the optional facts left empty; readers fill what their format carries. */
export function result(
  fields: Pick<NormalisedResult, 'tool' | 'tool_version' | 'rule_id' | 'raw_status' | 'outcome'> & Partial<NormalisedResult>,
): NormalisedResult {
  return {
    rule_title: '',
    resource: '',
    severity: null,
    severity_score: null,
    observed_at: null,
    cwe: [],
    cve: null,
    ...fields,
  };
}
