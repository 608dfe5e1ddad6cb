/**
 * Checkov JSON: one report ({check_type, results, summary}) or a list of them (one per framework
 * scanned). Passed and failed checks become results; skipped checks are results without a verdict.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { severityFromWord } from '../normalise.js';
import { at, isObject, Shape, text, type Json } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('checkov');

const LISTS = [
  ['failed_checks', 'fail'],
  ['passed_checks', 'pass'],
  ['skipped_checks', 'other'],
] as const;

export function readCheckov(doc: Json): ReadOutcome {
  const reports = Array.isArray(doc) ? doc.map((report, index) => ({ report, pointer: at('', index) })) : [{ report: doc, pointer: '' }];
  const results: NormalisedResult[] = [];
  let version: string | null = null;
  for (const { report: value, pointer } of reports) {
    const report = shape.object(value, pointer);
    const summary = isObject(report.summary) ? report.summary : {};
    version ??= text(summary.checkov_version);
    // A report of a framework with nothing to scan carries a summary and no results.
    if (report.results === undefined && isObject(report.summary)) continue;
    const lists = shape.object(report.results, at(pointer, 'results'));
    for (const [list, outcome] of LISTS) {
      const listPointer = at(at(pointer, 'results'), list);
      shape.arrayOrEmpty(lists[list], listPointer).forEach((checkValue, index) => {
        const checkPointer = at(listPointer, index);
        const check = shape.object(checkValue, checkPointer);
        const checkResult = isObject(check.check_result) ? check.check_result : {};
        const file = text(check.repo_file_path) ?? text(check.file_path) ?? '';
        const address = text(check.resource) ?? '';
        results.push(
          result({
            tool: 'checkov',
            tool_version: null,
            rule_id: shape.string(check.check_id, at(checkPointer, 'check_id')),
            rule_title: text(check.check_name) ?? '',
            resource: file && address ? `${file}:${address}` : file || address,
            raw_status: text(checkResult.result) ?? list.replace('_checks', '').toUpperCase(),
            outcome,
            severity: severityFromWord(check.severity),
            rule_alternates: text(check.bc_check_id) ? [text(check.bc_check_id)!] : undefined,
            resource_type: address.split('.')[0] || undefined,
          }),
        );
      });
    }
  }
  for (const item of results) item.tool_version = version;
  return { format: 'checkov', tool: 'checkov', tool_version: version, results };
}
