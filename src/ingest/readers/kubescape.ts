/**
 * Kubescape JSON (`kubescape scan --format json`, v2 and v3): `results[]`, one per scanned
 * resource, each with the controls evaluated on it; `summaryDetails.controls` gives each control's
 * score factor, which is Kubescape's severity (1–3 low, 4–6 medium, 7–8 high, 9–10 critical).
 * Control ids: C-0017, and CIS-5.2.2 for the CIS Kubernetes benchmark frameworks;
 * rule-resolution.ts maps them to the registry's rules of the same conditions (Trivy KSV checks,
 * kube-bench recommendations).
 */
import type { Severity } from '../../core/vocabulary.js';
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { numberFrom, severityFromWord, timestampFrom } from '../normalise.js';
import { at, isObject, Shape, text, type Json, type JsonObject } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('kubescape');

export function isKubescape(doc: Json): boolean {
  return isObject(doc) && isObject(doc.summaryDetails) && (Array.isArray(doc.results) || Array.isArray(doc.resources) || doc.results === null);
}

function severityOfScore(score: number | null): Severity | null {
  if (score === null || score <= 0) return null;
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

/** Kubescape's status and sub-status → outcome: an excepted failure passes with sub-status "w/exceptions". */
function outcomeOf(status: JsonObject | string): { outcome: NormalisedResult['outcome']; raw: string } {
  const word = (typeof status === 'string' ? status : (text(status.status) ?? '')).toLowerCase();
  const sub = typeof status === 'string' ? '' : (text(status.subStatus) ?? '').toLowerCase();
  if (word === 'failed') return { outcome: 'fail', raw: 'failed' };
  if (word === 'excluded' || sub === 'w/exceptions') return { outcome: 'accepted', raw: `${word} (${sub || 'excluded'})` };
  if (word === 'passed' && sub !== 'irrelevant') return { outcome: 'pass', raw: 'passed' };
  return { outcome: 'other', raw: sub ? `${word} (${sub})` : word || 'unknown' };
}

/** Kubescape 3 gives a control no status of its own in `results`: its rules' statuses decide (one failed rule fails it). */
function ruleStatus(control: JsonObject): string {
  const statuses = (Array.isArray(control.rules) ? control.rules.filter(isObject) : []).map((rule) => (text(rule.status) ?? '').toLowerCase());
  if (statuses.includes('failed')) return 'failed';
  if (statuses.length && statuses.every((s) => s === 'passed')) return 'passed';
  return statuses.find((s) => s !== 'passed') ?? 'skipped';
}

/** Namespace/Kind/Name from the resource object when the file carries it, else the resource id. */
function resourceName(id: string, object: JsonObject | undefined): { name: string; kind: string | undefined } {
  const metadata = object && isObject(object.metadata) ? object.metadata : {};
  const kind = (object && text(object.kind)) ?? id.split('/').filter(Boolean).slice(-2, -1)[0];
  const name = text(metadata.name);
  return { name: name ? [text(metadata.namespace), kind, name].filter(Boolean).join('/') : id, kind: kind || undefined };
}

export function readKubescape(doc: Json): ReadOutcome {
  const root = shape.object(doc, '');
  const summary = shape.object(root.summaryDetails, '/summaryDetails');
  const controls = isObject(summary.controls) ? summary.controls : {};
  const objects = new Map<string, JsonObject>();
  for (const entry of Array.isArray(root.resources) ? root.resources.filter(isObject) : []) {
    const id = text(entry.resourceID);
    if (id && isObject(entry.object)) objects.set(id, entry.object);
  }
  const metadata = isObject(root.metadata) ? root.metadata : {};
  const scan = isObject(metadata.scanMetadata) ? metadata.scanMetadata : {};
  const version = text(scan.kubescapeVersion) ?? text(root.kubescapeVersion);
  const observedAt = timestampFrom(root.generationTime);
  const results: NormalisedResult[] = [];
  shape.arrayOrEmpty(root.results, '/results').forEach((value, index) => {
    const pointer = at('/results', index);
    const item = shape.object(value, pointer);
    const resourceId = shape.string(item.resourceID, at(pointer, 'resourceID'));
    const { name, kind } = resourceName(resourceId, objects.get(resourceId));
    shape.arrayOrEmpty(item.controls, at(pointer, 'controls')).forEach((controlValue, cIndex) => {
      const cPointer = at(at(pointer, 'controls'), cIndex);
      const control = shape.object(controlValue, cPointer);
      const controlId = shape.string(control.controlID, at(cPointer, 'controlID'));
      const facts = isObject(controls[controlId]) ? (controls[controlId] as JsonObject) : {};
      const status = isObject(control.status) ? control.status : (text(control.status) ?? ruleStatus(control));
      const { outcome, raw } = outcomeOf(status);
      const severityWord = isObject(facts.severity) ? null : facts.severity;
      results.push(
        result({
          tool: 'kubescape',
          tool_version: version,
          rule_id: controlId,
          rule_title: text(control.name) ?? text(facts.name) ?? '',
          resource: name,
          raw_status: raw,
          outcome,
          severity: severityFromWord(severityWord) ?? severityOfScore(numberFrom(facts.scoreFactor)),
          observed_at: observedAt && !observedAt.startsWith('0001-') ? observedAt : null,
          provider: 'kubernetes',
          resource_type: kind,
        }),
      );
    });
  });
  return { format: 'kubescape', tool: 'kubescape', tool_version: version, results };
}
