/**
 * KICS JSON (`kics scan --report-formats json`): `queries[]`, each with the files where it found
 * the issue; one result per query and place. KICS lists failures only. A query's id is a UUID
 * no registry maps, so results resolve through the CWE KICS gives (1.7 and later) and, for its
 * "Secret Management" category, as hard-coded secrets.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { cweIdsFrom, severityFromWord } from '../normalise.js';
import { at, isObject, Shape, text, type Json } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('kics');

export function isKics(doc: Json): boolean {
  return isObject(doc) && Array.isArray(doc.queries) && ('kics_version' in doc || 'queries_total' in doc || 'files_scanned' in doc || 'total_counter' in doc);
}

export function readKics(doc: Json): ReadOutcome {
  const root = shape.object(doc, '');
  const version = text(root.kics_version);
  const results: NormalisedResult[] = [];
  shape.array(root.queries, '/queries').forEach((value, index) => {
    const pointer = at('/queries', index);
    const query = shape.object(value, pointer);
    const queryId = shape.string(query.query_id, at(pointer, 'query_id'));
    const category = text(query.category) ?? '';
    const cwe = cweIdsFrom([query.cwe === undefined ? null : `CWE-${String(query.cwe).replace(/^cwe-?/i, '')}`]);
    if (!cwe.length && /secret/i.test(category)) cwe.push('CWE-798');
    shape.arrayOrEmpty(query.files, at(pointer, 'files')).forEach((fileValue, fIndex) => {
      const fPointer = at(at(pointer, 'files'), fIndex);
      const file = shape.object(fileValue, fPointer);
      const name = text(file.file_name) ?? '';
      const line = typeof file.line === 'number' ? `:${file.line}` : '';
      const key = text(file.search_key);
      results.push(
        result({
          tool: 'kics',
          tool_version: version,
          rule_id: queryId,
          rule_title: text(query.query_name) ?? '',
          resource: [`${name}${line}`, key].filter(Boolean).join(' '),
          raw_status: text(file.issue_type) ?? 'FOUND',
          outcome: 'fail',
          // KICS's TRACE is below info; it has no verdict weight either way.
          severity: severityFromWord(query.severity) ?? (text(query.severity)?.toUpperCase() === 'TRACE' ? 'info' : null),
          cwe,
          provider: text(query.cloud_provider)?.toLowerCase() || undefined,
          resource_type: text(file.resource_type) ?? undefined,
        }),
      );
    });
  });
  return { format: 'kics', tool: 'kics', tool_version: version, results };
}
