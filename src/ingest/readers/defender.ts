/**
 * Microsoft Defender for Cloud's CSV exports from the portal: the recommendations list ("Download
 * CSV report": one row per recommendation and resource, `state` Healthy, Unhealthy or
 * NotApplicable) and the regulatory compliance report (one row per standard control,
 * recommendation and resource, `resourceState`). The rule is the recommendation (assessment)
 * id; Defender's assessments are the Azure Policy definitions of the same name, so the display
 * name resolves the rule where the id is an assessment key the registry does not list
 * (convert.ts).
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { severityFromWord, timestampFrom } from '../normalise.js';
import { parseDelimited } from '../delimited.js';
import { ScanShapeError } from '../shape.js';
import { result } from './common.js';

export function isDefenderCsv(columns: ReadonlySet<string>): boolean {
  return columns.has('RECOMMENDATIONID') && columns.has('RECOMMENDATIONDISPLAYNAME') && (columns.has('STATE') || columns.has('RESOURCESTATE'));
}

/** Healthy, Unhealthy, NotApplicable (and the compliance report's Passed/Failed/Skipped). */
function outcomeOf(state: string): NormalisedResult['outcome'] {
  const word = state.trim().toLowerCase();
  if (word === 'unhealthy' || word === 'failed') return 'fail';
  if (word === 'healthy' || word === 'passed') return 'pass';
  return 'other';
}

export function readDefenderCsv(bytes: Uint8Array): ReadOutcome {
  const table = parseDelimited(bytes, 'defender-csv', ['RECOMMENDATIONID']);
  const column = (row: string[], name: string) => {
    const index = table.columns.get(name);
    const value = index === undefined ? '' : (row[index] ?? '').trim();
    return value === '' ? null : value;
  };
  const results = table.rows.map(({ cells, line }) => {
    const id = column(cells, 'RECOMMENDATIONID') ?? column(cells, 'RECOMMENDATIONNAME');
    if (!id) throw new ScanShapeError('defender-csv', { line }, 'has an empty recommendationId');
    const state = column(cells, 'STATE') ?? column(cells, 'RESOURCESTATE');
    if (!state) throw new ScanShapeError('defender-csv', { line }, 'has an empty state');
    const cloud = (column(cells, 'CLOUD') ?? 'Azure').toLowerCase();
    return result({
      tool: 'microsoft-defender-for-cloud',
      tool_version: null,
      rule_id: id,
      rule_title: column(cells, 'RECOMMENDATIONDISPLAYNAME') ?? '',
      resource: column(cells, 'RESOURCEID') ?? column(cells, 'RESOURCENAME') ?? column(cells, 'SUBSCRIPTIONID') ?? '',
      raw_status: state,
      outcome: outcomeOf(state),
      severity: severityFromWord(column(cells, 'SEVERITY')),
      observed_at: timestampFrom(column(cells, 'STATUSCHANGEDATE') ?? column(cells, 'EXPORTEDTIMESTAMP')),
      provider: cloud === 'aws' ? 'aws' : cloud === 'gcp' ? 'gcp' : 'azure',
      resource_type: column(cells, 'RESOURCETYPE') ?? undefined,
    });
  });
  return { format: 'defender-csv', tool: 'microsoft-defender-for-cloud', tool_version: null, results };
}
