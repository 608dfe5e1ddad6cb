/**
 * InSpec JSON and the Heimdall Data Format (HDF, what InSpec's `json` reporter and MITRE's
 * converters write): `profiles[].controls[]`, each control with the results of its tests on the
 * platform scanned. One result per control, with Heimdall's control status: failed when a test
 * failed, passed when every test passed, no verdict when skipped, erroneous or not applicable
 * (impact 0); a waived failure is accepted. The control's `tags.nist` are NIST SP 800-53 ids the
 * profile's authors claim the control checks: they are how the result reaches signals
 * (convert.ts), as the tool's own word. Overlay profiles repeat a control without results; the
 * control with results is the one read.
 */
import type { Severity } from '../../core/vocabulary.js';
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { cweIdsFrom, numberFrom, severityFromWord, timestampFrom, vulnerabilityId, vulnerabilityIdsIn } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('hdf');

export function isHdf(doc: Json): boolean {
  if (!isObject(doc) || !Array.isArray(doc.profiles)) return false;
  const first = doc.profiles.find(isObject);
  return !!first && Array.isArray(first.controls) && (isObject(doc.platform) || isObject(doc.statistics) || 'version' in doc);
}

/** InSpec's impact: 0.7–1.0 high (0.9 and above critical), 0.4–0.69 medium, 0.01–0.39 low, 0 none. */
function severityOfImpact(impact: number | null): Severity | null {
  if (impact === null) return null;
  if (impact >= 0.9) return 'critical';
  if (impact >= 0.7) return 'high';
  if (impact >= 0.4) return 'medium';
  if (impact > 0) return 'low';
  return 'info';
}

/** NIST SP 800-53 control ids (AC-6, AC-6(9), SI-2 a) among a control's `tags.nist`, without the revision markers (Rev_4). */
function nistControls(tags: JsonObject): string[] {
  const values = Array.isArray(tags.nist) ? tags.nist : typeof tags.nist === 'string' ? [tags.nist] : [];
  const ids = new Set<string>();
  for (const value of values) {
    const match = typeof value === 'string' ? /^([A-Z]{2})-(\d{1,2})(\s*\((\d{1,2})\))?/.exec(value.trim()) : null;
    if (match) ids.add(`${match[1]}-${Number(match[2])}${match[4] ? `(${Number(match[4])})` : ''}`);
  }
  return [...ids];
}

interface Verdict {
  outcome: NormalisedResult['outcome'];
  raw: string;
}

function verdictOf(control: JsonObject, impact: number | null): Verdict {
  const statuses = (Array.isArray(control.results) ? control.results.filter(isObject) : []).map((r) => (text(r.status) ?? '').toLowerCase());
  const waiver = isObject(control.waiver_data) ? control.waiver_data : null;
  const waived = !!waiver && (waiver.skipped_due_to_waiver === true || waiver.run === false || typeof waiver.justification === 'string');
  if (impact === 0) return { outcome: 'other', raw: 'Not Applicable' };
  if (statuses.includes('error')) return { outcome: 'other', raw: 'Profile Error' };
  if (statuses.includes('failed')) return waived ? { outcome: 'accepted', raw: 'Failed (waived)' } : { outcome: 'fail', raw: 'Failed' };
  if (statuses.length && statuses.every((s) => s === 'passed')) return { outcome: 'pass', raw: 'Passed' };
  if (waived) return { outcome: 'accepted', raw: 'Waived' };
  return { outcome: 'other', raw: 'Not Reviewed' };
}

export function readHdf(doc: Json): ReadOutcome {
  const root = shape.object(doc, '');
  const platform = isObject(root.platform) ? root.platform : {};
  const target = text(platform.target_id) ?? [text(platform.name), text(platform.release)].filter(Boolean).join(' ');
  const version = text(root.version);
  // A control id → the control read: the one with results, else the first seen.
  const chosen = new Map<string, { control: JsonObject; pointer: string }>();
  shape.array(root.profiles, '/profiles').forEach((profileValue, pIndex) => {
    const pPointer = at('/profiles', pIndex);
    const profile = shape.object(profileValue, pPointer);
    shape.array(profile.controls, at(pPointer, 'controls')).forEach((controlValue, cIndex) => {
      const cPointer = at(at(pPointer, 'controls'), cIndex);
      const control = shape.object(controlValue, cPointer);
      const id = shape.string(control.id, at(cPointer, 'id'));
      const held = chosen.get(id);
      const hasResults = Array.isArray(control.results) && control.results.length > 0;
      if (!held || (hasResults && !(Array.isArray(held.control.results) && held.control.results.length > 0))) chosen.set(id, { control, pointer: cPointer });
    });
  });
  const results: NormalisedResult[] = [];
  for (const [id, { control }] of chosen) {
    const tags = isObject(control.tags) ? control.tags : {};
    const impact = numberFrom(control.impact);
    const { outcome, raw } = verdictOf(control, impact);
    const times = (Array.isArray(control.results) ? control.results.filter(isObject) : [])
      .map((r) => timestampFrom(r.start_time))
      .filter((t): t is string => !!t)
      .sort();
    const cve = vulnerabilityId(id) ?? vulnerabilityIdsIn([...(Array.isArray(tags.cve) ? tags.cve : [tags.cve])])[0] ?? null;
    const nist = nistControls(tags);
    results.push(
      result({
        tool: 'inspec',
        tool_version: version,
        rule_id: id,
        rule_title: text(control.title) ?? '',
        resource: target,
        raw_status: raw,
        outcome,
        severity: severityFromWord(tags.severity) ?? severityOfImpact(impact),
        severity_score: impact === null ? null : Math.round(impact * 100),
        observed_at: times.at(-1) ?? null,
        cwe: cweIdsFrom(Array.isArray(tags.cwe) ? tags.cwe : [tags.cwe]),
        cve,
        nist_controls: nist.length ? nist : undefined,
        resource_type: text(platform.name) ?? undefined,
      }),
    );
  }
  return { format: 'hdf', tool: 'inspec', tool_version: version, results };
}
