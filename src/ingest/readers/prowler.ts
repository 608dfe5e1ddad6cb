/**
 * Prowler's own layouts: native JSON (v3, one object per check result with CheckID) and CSV
 * (v3+, semicolon-separated with CHECK_ID and STATUS columns). Its OCSF and ASFF outputs are read
 * by the OCSF and ASFF readers, which know Prowler's conventions there.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { outcomeFromStatus, severityFromWord, timestampFrom } from '../normalise.js';
import { at, isObject, ScanShapeError, Shape, text, type Json } from '../shape.js';
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
      resource:
        column(cells, 'RESOURCE_UID') ??
        column(cells, 'RESOURCE_ARN') ??
        column(cells, 'RESOURCE_ID') ??
        column(cells, 'ACCOUNT_UID') ??
        column(cells, 'ACCOUNT_ID') ??
        '',
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

/**
 * Prowler 2's check id (check11, extra72): the CHECK_ID column when the file has one, else the
 * bracketed id that starts the title ("[check11] Avoid the use of the root account").
 */
function v2CheckId(explicit: string | null, title: string | null): string | null {
  if (explicit) return explicit;
  const bracketed = /^\s*\[([a-z]+\d+)\]/i.exec(title ?? '');
  return bracketed ? bracketed[1].toLowerCase() : null;
}

/** Prowler 2's titles carry the id and "(Scored)"; the title proper is what is left. */
const v2Title = (title: string | null) => (title ?? '').replace(/^\s*\[[a-z]+\d+\]\s*/i, '').replace(/\s*\((Not )?Scored\)\s*$/i, '');

export function isProwlerV2Csv(columns: ReadonlySet<string>): boolean {
  return columns.has('CHECK_RESULT') && (columns.has('TITLE_TEXT') || columns.has('CHECK_ID')) && !columns.has('STATUS');
}

export function readProwlerV2Csv(bytes: Uint8Array): ReadOutcome {
  const table = parseDelimited(bytes, 'prowler-v2-csv', ['CHECK_RESULT']);
  const column = (row: string[], name: string) => {
    const index = table.columns.get(name);
    const value = index === undefined ? '' : (row[index] ?? '');
    return value === '' ? null : value;
  };
  const results = table.rows.map(({ cells, line }) => {
    const title = column(cells, 'TITLE_TEXT');
    const ruleId = v2CheckId(column(cells, 'CHECK_ID'), title);
    if (!ruleId) throw new ScanShapeError('prowler-v2-csv', { line }, 'names no check: expected a CHECK_ID column or a TITLE_TEXT starting with [checkNN]');
    const rawStatus = column(cells, 'CHECK_RESULT');
    if (!rawStatus) throw new ScanShapeError('prowler-v2-csv', { line }, 'has an empty CHECK_RESULT');
    const account = column(cells, 'ACCOUNT_NUM');
    return result({
      tool: 'prowler',
      tool_version: null,
      rule_id: ruleId,
      rule_title: v2Title(title),
      resource: column(cells, 'CHECK_RESOURCE_ID') ?? [account, column(cells, 'REGION')].filter(Boolean).join(' '),
      raw_status: rawStatus,
      outcome: outcomeFromStatus(rawStatus),
      severity: severityFromWord(column(cells, 'CHECK_SEVERITY')),
      observed_at: timestampFrom(column(cells, 'PROWLER_START_TIME')),
      provider: 'aws',
      resource_type: column(cells, 'CHECK_ASFF_RESOURCE_TYPE') ?? undefined,
    });
  });
  return { format: 'prowler-v2-csv', tool: 'prowler', tool_version: null, results };
}

const v2Json = new Shape('prowler-v2-json');

export function isProwlerV2Json(doc: Json): boolean {
  const first = Array.isArray(doc) ? doc.find(isObject) : isObject(doc) ? doc : undefined;
  return !!first && 'Control ID' in first && 'Status' in first && ('Account Number' in first || 'Control' in first);
}

export function readProwlerV2Json(doc: Json): ReadOutcome {
  const items = Array.isArray(doc) ? doc : [v2Json.object(doc, '')];
  const results = items.map((value, index) => {
    const pointer = Array.isArray(doc) ? at('', index) : '';
    const item = v2Json.object(value, pointer);
    const rawStatus = v2Json.string(item.Status, at(pointer, 'Status'));
    const ruleId =
      v2CheckId(text(item['Check ID']), text(item.Control)) ?? v2Json.fail(at(pointer, 'Control'), 'must start with the check id in brackets ([check11] …)');
    return result({
      tool: 'prowler',
      tool_version: null,
      rule_id: ruleId,
      rule_title: v2Title(text(item.Control)),
      resource: text(item['Resource ID']) ?? [text(item['Account Number']), text(item.Region)].filter(Boolean).join(' '),
      raw_status: rawStatus,
      outcome: outcomeFromStatus(rawStatus),
      severity: severityFromWord(item.Severity),
      observed_at: timestampFrom(item.Timestamp),
      provider: 'aws',
    });
  });
  return { format: 'prowler-v2-json', tool: 'prowler', tool_version: null, results };
}
