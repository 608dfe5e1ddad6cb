/** The JSON form: checked against its schema, then read into a draft with the defaults filled in. */
import { firstProblemOf } from '../core/validation.js';
import { CustomFrameworkInput, DEFAULT_SIGNAL_CONFIDENCE, DEFAULT_SIGNAL_RELATIONSHIP, type CustomControlInput } from '../schemas/custom-framework.js';
import type { Draft } from './define.js';
import { DEFAULT_CATEGORY, frameworkInvalid, type CustomControl } from './model.js';

export function readJsonForm(value: unknown): Draft {
  const problem = firstProblemOf(CustomFrameworkInput, value);
  if (problem) {
    const index = /^\/controls\/(\d+)/.exec(problem.pointer)?.[1];
    const id = index === undefined ? undefined : (value as { controls: Array<{ id?: unknown }> }).controls[Number(index)]?.id;
    throw frameworkInvalid('json', { pointer: problem.pointer }, `${problem.parameter || 'the body'} ${problem.reason}`, {
      ...(typeof id === 'string' && { control_id: id }),
      ...(problem.limit !== undefined && { limit: problem.limit }),
    });
  }
  const input = value as CustomFrameworkInput;
  return {
    format: 'json',
    code: input.code,
    name: input.name,
    version: input.version,
    description: input.description,
    controls: input.controls.map((control, i) => ({
      control: controlOf(control),
      at: (field, index) => ({ pointer: `/controls/${i}/${field}${index === undefined ? '' : `/${index}`}` }),
    })),
    at: (field) => ({ pointer: `/${field}` }),
  };
}

/** A control of the JSON form with its defaults: what the store keeps and GET gives back. */
export function controlOf(input: CustomControlInput): CustomControl {
  return {
    id: input.id,
    title: input.title,
    description: input.description ?? '',
    category: input.category?.trim() || DEFAULT_CATEGORY,
    level: input.level ?? null,
    guidance: input.guidance ?? '',
    evidence: input.evidence ?? [],
    signals: (input.signals ?? []).map((link) => ({
      signal_id: link.signal_id,
      relationship: link.relationship ?? DEFAULT_SIGNAL_RELATIONSHIP,
      confidence: link.confidence ?? DEFAULT_SIGNAL_CONFIDENCE,
      rationale: link.rationale ?? '',
    })),
    corresponds_to: (input.corresponds_to ?? []).map((target) => ({
      framework: target.framework,
      control_id: target.control_id,
      relationship: target.relationship,
    })),
  };
}
