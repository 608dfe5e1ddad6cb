/**
 * Prowler's own layouts: native JSON (v3, one object per check result with CheckID) and CSV
 * (v3+, semicolon-separated with CHECK_ID and STATUS columns). Its OCSF and ASFF outputs are read
 * by the OCSF and ASFF readers, which know Prowler's conventions there.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { outcomeFromStatus, severityFromWord, timestampFrom } from '../normalise.js';
import { at, ScanShapeError, Shape, text, type Json } from '../shape.js';
import { parseDelimited } from '../delimited.js';
import { result } from './common.js';

const native = new Shape('prowler-native');

export function readProwlerNative(doc: Json): ReadOutcome {
  const items = native.array(doc, '');
  const results: NormalisedResult[] = items.map((value, index) => {
    const pointer = at('', index);
    const item = native.object(value, pointer);
    const rawStatus = native.string(item.Status, at(pointer, 'Status'));
    const muted = item.Muted === true;
    const outcome = outcomeFromStatus(rawStatus);
    return result({
      tool: 'prowler',
      tool_version: null,
      rule_id: native.string(item.CheckID, at(pointer, 'CheckID')),
      rule_title: text(item.CheckTitle) ?? '',
      resource: text(item.ResourceArn) ?? text(item.ResourceId) ?? text(item.AccountId) ?? '',
      raw_status: muted ? `${rawStatus} (muted)` : rawStatus,
      outcome: muted && outcome === 'fail' ? 'accepted' : muted ? 'other' : outcome,
      severity: severityFromWord(item.Severity),
      observed_at: timestampFrom(item.AssessmentStartTime),
      provider: text(item.Provider) ?? undefined,
      resource_type: text(item.ResourceType) ?? undefined,
    });
  });
  return { format: 'prowler-native', tool: 'prowler', tool_version: null, results };
}

/** The columns the CSV reader needs; the rest are free for Prowler to add or drop. */
const REQUIRED_COLUMNS = ['CHECK_ID', 'STATUS'] as const;

export function readProwlerCsv(bytes: Uint8Array): ReadOutcome {
  const table = parseDelimited(bytes, 'prowler-csv', REQUIRED_COLUMNS);
  const column = (row: string[], name: string) => {
    const index = table.columns.get(name);
    const value = index === undefined ? '' : (row[index] ?? '');
    return value === '' ? null : value;
  };
  let version: string | null = null;
  const results = table.rows.map(({ cells, line }) => {
    const rawStatus = column(cells, 'STATUS');
    const ruleId = column(cells, 'CHECK_ID');
    if (!ruleId) throw new ScanShapeError('prowler-csv', { line }, 'has an empty CHECK_ID');
    if (!rawStatus) throw new ScanShapeError('prowler-csv', { line }, 'has an empty STATUS');
    version ??= column(cells, 'PROWLER_VERSION');
    const muted = /^true$/i.test(column(cells, 'MUTED') ?? '');
    const outcome = outcomeFromStatus(rawStatus);
    return result({
      tool: 'prowler',
      tool_version: column(cells, 'PROWLER_VERSION'),
      rule_id: ruleId,
      rule_title: column(cells, 'CHECK_TITLE') ?? '',
      resource: column(cells, 'RESOURCE_UID') ?? column(cells, 'RESOURCE_ARN') ?? column(cells, 'RESOURCE_ID') ?? column(cells, 'ACCOUNT_UID') ?? column(cells, 'ACCOUNT_ID') ?? '',
      raw_status: muted ? `${rawStatus} (muted)` : rawStatus,
      outcome: muted && outcome === 'fail' ? 'accepted' : muted ? 'other' : outcome,
      severity: severityFromWord(column(cells, 'SEVERITY')),
      observed_at: timestampFrom(column(cells, 'TIMESTAMP') ?? column(cells, 'ASSESSMENT_START_TIME')),
      provider: column(cells, 'PROVIDER') ?? undefined,
      resource_type: column(cells, 'RESOURCE_TYPE') ?? undefined,
    });
  });
  return { format: 'prowler-csv', tool: 'prowler', tool_version: version, results };
}
