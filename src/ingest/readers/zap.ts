/**
 * OWASP ZAP's JSON report (the "traditional-json" report): `site[]`, each with its `alerts[]`;
 * one result per alert instance (the URL and method it was seen on). `riskcode` is ZAP's severity
 * (3 high, 2 medium, 1 low, 0 informational); informational alerts and alerts a person marked as
 * false positives (confidence 0) carry no verdict. Alerts resolve through their CWE (`cweid`).
 */
import type { Severity } from '../../core/vocabulary.js';
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { numberFrom } from '../normalise.js';
import { at, isObject, Shape, text, type Json } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('zap');

const RISK: Record<number, Severity> = { 0: 'info', 1: 'low', 2: 'medium', 3: 'high' };
const RISK_WORDS: Record<number, string> = { 0: 'Informational', 1: 'Low', 2: 'Medium', 3: 'High' };

export function isZap(doc: Json): boolean {
  if (!isObject(doc) || !Array.isArray(doc.site)) return false;
  const first = doc.site.find(isObject);
  return '@version' in doc || '@programName' in doc || (!!first && Array.isArray(first.alerts));
}

export function readZap(doc: Json): ReadOutcome {
  const root = shape.object(doc, '');
  const version = text(root['@version']);
  const results: NormalisedResult[] = [];
  shape.array(root.site, '/site').forEach((siteValue, sIndex) => {
    const sPointer = at('/site', sIndex);
    const site = shape.object(siteValue, sPointer);
    const siteName = text(site['@name']) ?? '';
    shape.arrayOrEmpty(site.alerts, at(sPointer, 'alerts')).forEach((alertValue, aIndex) => {
      const aPointer = at(at(sPointer, 'alerts'), aIndex);
      const alert = shape.object(alertValue, aPointer);
      const pluginId = shape.string(alert.pluginid ?? alert.alertRef, at(aPointer, 'pluginid'));
      const risk = numberFrom(alert.riskcode);
      const confidence = numberFrom(alert.confidence);
      const cweId = numberFrom(alert.cweid);
      const cwe = cweId !== null && cweId > 0 ? [`CWE-${cweId}`] : [];
      const falsePositive = confidence === 0;
      const informational = risk === 0;
      const outcome: NormalisedResult['outcome'] = falsePositive || informational ? 'other' : 'fail';
      const raw = falsePositive ? 'False Positive' : risk !== null ? (RISK_WORDS[risk] ?? String(risk)) : 'Alert';
      const instances = Array.isArray(alert.instances) && alert.instances.length ? alert.instances.filter(isObject) : [{}];
      for (const instance of instances) {
        const uri = text(instance.uri) ?? siteName;
        results.push(
          result({
            tool: 'zap',
            tool_version: version,
            rule_id: pluginId,
            rule_title: text(alert.name) ?? text(alert.alert) ?? '',
            resource: [text(instance.method), uri, text(instance.param) ? `(${text(instance.param)})` : null].filter(Boolean).join(' '),
            raw_status: raw,
            outcome,
            severity: risk === null ? null : (RISK[risk] ?? null),
            cwe,
            resource_type: 'url',
          }),
        );
      }
    });
  });
  return { format: 'zap', tool: 'zap', tool_version: version, results };
}
