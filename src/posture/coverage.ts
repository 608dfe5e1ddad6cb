/**
 * GET /v1/frameworks/{code}/coverage?tools=… (docs/posture.md): for the tools a team runs, the
 * controls they can assess, the controls no rule of theirs reaches, and the other tools' rules that
 * would, ranked. The route's answer, built from the plan (src/gap/coverage-plan.ts).
 */
import { frameworkPlan, type PlanControl } from '../gap/coverage-plan.js';
import type { ToolRuleIndex } from '../registry/tool-rules.js';

/** The floor a rule reaches a control at here: the analyses' default min_confidence. */
export const COVERAGE_MIN_CONFIDENCE = 0.7;

export interface CoverageFramework {
  code: string;
  name: string;
  version: string;
  custom: boolean;
  revision?: number;
  controls: ReadonlyArray<PlanControl & { title: string }>;
}

export function coverageAnswer(index: ToolRuleIndex, framework: CoverageFramework, tools: readonly string[], limit: number, cacheKey?: string) {
  const { controls } = framework;
  const toolSet = new Set(tools);
  const plan = frameworkPlan(index, controls, toolSet, COVERAGE_MIN_CONFIDENCE, { cacheKey });
  const titles = new Map(controls.map((control) => [control.id, control.title]));
  const reachable = new Set(plan.suggested_rules.flatMap((rule) => rule.control_ids));
  const total = controls.length;
  return {
    framework: {
      code: framework.code,
      name: framework.name,
      version: framework.version,
      custom: framework.custom,
      ...(framework.revision !== undefined && { revision: framework.revision }),
    },
    tools: [...toolSet].sort(),
    min_confidence: COVERAGE_MIN_CONFIDENCE,
    summary: {
      controls_total: total,
      assessable: plan.assessable.length,
      not_reached: plan.not_reached.length,
      reachable_by_other_tools: plan.reachable_by_other_tools,
      unreachable: plan.not_reached.length - plan.reachable_by_other_tools,
      coverage: total ? Math.round((1000 * plan.assessable.length) / total) / 1000 : 0,
    },
    assessable: plan.assessable.map((id) => ({ id, title: titles.get(id)! })),
    not_reached: plan.not_reached.map((id) => ({ id, title: titles.get(id)!, reachable_by_other_tools: reachable.has(id) })),
    suggested_rules: plan.suggested_rules.slice(0, limit),
    suggested_total: plan.suggested_total,
  };
}

/** The tools parameter read: comma-separated or repeated, any case; returns canonical ids and the unknown ones. */
export function toolsOf(values: readonly string[], index: ToolRuleIndex): { tools: string[]; unknown: string[] } {
  const wanted = values
    .flatMap((value) => value.split(','))
    .map((tool) => tool.trim().toLowerCase())
    .filter(Boolean);
  const tools = [...new Set(wanted.filter((tool) => index.tools.includes(tool)))];
  return { tools, unknown: wanted.filter((tool) => !index.tools.includes(tool)) };
}
