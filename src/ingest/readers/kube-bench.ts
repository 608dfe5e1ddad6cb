/**
 * kube-bench JSON: the object layout ({Controls: [...], Totals}) and the older array of controls.
 * Each control carries the benchmark version it was checked against; the rule id is that version
 * and the test number ("1.6/1.1.1"), with the file's other versions as fallbacks, because some
 * files give a section (etcd) a version of its own that no benchmark carries.
 */
import type { NormalisedResult, ReadOutcome } from '../model.js';
import { outcomeFromStatus } from '../normalise.js';
import { at, isObject, Shape, text, type Json } from '../shape.js';
import { result } from './common.js';

const shape = new Shape('kube-bench');

export function readKubeBench(doc: Json): ReadOutcome {
  const controlsPointer = Array.isArray(doc) ? '' : '/Controls';
  const controls = Array.isArray(doc) ? doc : shape.array(shape.object(doc, '').Controls, '/Controls');
  const versions = [
    ...new Set(
      controls
        .filter(isObject)
        .map((c) => text(c.version))
        .filter((v): v is string => !!v),
    ),
  ];
  const results: NormalisedResult[] = [];
  controls.forEach((value, index) => {
    const pointer = at(controlsPointer, index);
    const control = shape.object(value, pointer);
    const version = text(control.version);
    const nodeType = text(control.node_type) ?? text(control.text) ?? '';
    shape.array(control.tests, at(pointer, 'tests')).forEach((testValue, tIndex) => {
      const testPointer = at(at(pointer, 'tests'), tIndex);
      const test = shape.object(testValue, testPointer);
      shape.arrayOrEmpty(test.results, at(testPointer, 'results')).forEach((entry, rIndex) => {
        const rPointer = at(at(testPointer, 'results'), rIndex);
        const check = shape.object(entry, rPointer);
        const number = shape.string(check.test_number, at(rPointer, 'test_number'));
        const status = shape.string(check.status, at(rPointer, 'status'));
        const others = versions.filter((v) => v !== version).map((v) => `${v}/${number}`);
        results.push(
          result({
            tool: 'kube-bench',
            tool_version: null,
            rule_id: version ? `${version}/${number}` : number,
            rule_title: text(check.test_desc) ?? '',
            resource: nodeType,
            raw_status: status,
            outcome: outcomeFromStatus(status),
            rule_alternates: others.length ? others : undefined,
            provider: 'kubernetes',
            resource_type: nodeType || undefined,
          }),
        );
      });
    });
  });
  return { format: 'kube-bench', tool: 'kube-bench', tool_version: null, results };
}
