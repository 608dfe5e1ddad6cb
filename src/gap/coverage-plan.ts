/**
 * What would assess the rest (docs/posture.md): for a framework and the scanners a team runs, the
 * controls some rule of theirs reaches, the controls none does, and the other tools' rules that
 * would reach those, ranked by how many of them each reaches. A rule reaches a control through
 * its signals' mappings at or above the confidence floor. Pure over the rule index and the
 * framework's controls.
 */
import { toolRuleIndexOf, type ToolRuleIndex } from '../registry/tool-rules.js';
import type { Registry } from '../registry/registry.js';
import { gapIndexOf } from './gap-index.js';
import type { CustomFrameworkFacts } from './custom-frameworks.js';

/** A framework's controls with the signals mapped to them (registry or custom framework alike). */
export interface PlanControl {
  id: string;
  mapped_signals: ReadonlyArray<{ signal_id: string; confidence: number }>;
}

export interface SuggestedRule {
  tool_id: string;
  rule_id: string;
  rule_name: string;
  /** How many controls the tools' rules do not reach this rule reaches. */
  controls_reached: number;
  control_ids: string[];
}

export interface FrameworkPlan {
  controls_total: number;
  /** Control ids some rule of the tools reaches, in control order. */
  assessable: string[];
  /** Control ids no rule of the tools reaches, in control order. */
  not_reached: string[];
  /** Of those, how many some other tool's rule reaches. */
  reachable_by_other_tools: number;
  /** Other tools' rules reaching not_reached controls, most reached first (then tool, rule). */
  suggested_rules: SuggestedRule[];
  /** How many such rules there are (suggested_rules may be cut short). */
  suggested_total: number;
}

/** Per framework and floor: each rule that reaches a control of it, with those controls' positions. */
const reachCache = new WeakMap<ToolRuleIndex, Map<string, Array<[number, number[]]>>>();

function ruleReach(index: ToolRuleIndex, controls: readonly PlanControl[], floor: number, cacheKey: string | undefined): Array<[number, number[]]> {
  let byKey = reachCache.get(index);
  if (cacheKey !== undefined) {
    const hit = byKey?.get(`${cacheKey}|${floor}`);
    if (hit) return hit;
  }
  const controlsOfSignal = new Map<string, number[]>();
  controls.forEach((control, position) => {
    for (const mapped of control.mapped_signals) {
      if (mapped.confidence < floor) continue;
      let list = controlsOfSignal.get(mapped.signal_id);
      if (!list) controlsOfSignal.set(mapped.signal_id, (list = []));
      if (!list.includes(position)) list.push(position);
    }
  });
  const reach: Array<[number, number[]]> = [];
  index.rules.forEach((rule, i) => {
    let positions: number[] | undefined;
    for (const signal of rule.signals) {
      const more = controlsOfSignal.get(signal);
      if (!more) continue;
      positions = positions ? [...new Set([...positions, ...more])] : more;
    }
    if (positions) reach.push([i, positions]);
  });
  if (cacheKey !== undefined) {
    if (!byKey) reachCache.set(index, (byKey = new Map()));
    byKey.set(`${cacheKey}|${floor}`, reach);
  }
  return reach;
}

/**
 * The plan for one framework. `cacheKey` names a framework whose controls depend on the registry
 * alone (a registry framework's code): what depends only on it is kept per thread.
 */
export function frameworkPlan(
  index: ToolRuleIndex,
  controls: readonly PlanControl[],
  tools: ReadonlySet<string>,
  floor: number,
  options: { cacheKey?: string; suggestions?: number } = {},
): FrameworkPlan {
  const reach = ruleReach(index, controls, floor, options.cacheKey);
  const covered = new Uint8Array(controls.length);
  for (const [rule, positions] of reach) {
    if (!tools.has(index.rules[rule].tool_id)) continue;
    for (const position of positions) covered[position] = 1;
  }
  const reachableElsewhere = new Uint8Array(controls.length);
  // Counted first, control ids listed only for the rules kept: most rules are never shown.
  const candidates: Array<{ rule: number; positions: number[]; reached: number }> = [];
  for (const [rule, positions] of reach) {
    if (tools.has(index.rules[rule].tool_id)) continue;
    let reached = 0;
    for (const position of positions) {
      if (covered[position]) continue;
      reached += 1;
      reachableElsewhere[position] = 1;
    }
    if (reached) candidates.push({ rule, positions, reached });
  }
  candidates.sort(
    (a, b) =>
      b.reached - a.reached ||
      byCodeUnits(index.rules[a.rule].tool_id, index.rules[b.rule].tool_id) ||
      byCodeUnits(index.rules[a.rule].rule_id, index.rules[b.rule].rule_id),
  );
  const kept = options.suggestions === undefined ? candidates : candidates.slice(0, options.suggestions);
  const suggested: SuggestedRule[] = kept.map(({ rule, positions, reached }) => {
    const { tool_id, rule_id, rule_name } = index.rules[rule];
    const uncovered = positions.filter((position) => !covered[position]).sort((a, b) => a - b);
    return { tool_id, rule_id, rule_name, controls_reached: reached, control_ids: uncovered.map((position) => controls[position].id) };
  });
  const assessable: string[] = [];
  const notReached: string[] = [];
  let elsewhere = 0;
  controls.forEach((control, position) => {
    if (covered[position]) assessable.push(control.id);
    else {
      notReached.push(control.id);
      if (reachableElsewhere[position]) elsewhere += 1;
    }
  });
  return {
    controls_total: controls.length,
    assessable,
    not_reached: notReached,
    reachable_by_other_tools: elsewhere,
    suggested_rules: suggested,
    suggested_total: candidates.length,
  };
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Rules suggested per framework in a stored analysis's plan (the framework's coverage route lists more). */
export const PLAN_SUGGESTIONS = 10;

/** A stored analysis's coverage plan (data.coverage_plan), for its frameworks and the tools its findings came from. */
export interface CoveragePlan {
  /** The registry's tools among the findings' sources (source.tool), sorted. */
  tools: string[];
  /** Sources the registry maps no rule of, sorted: their findings count, but they suggest nothing. */
  other_sources: string[];
  /** The mapping confidence floor a rule reaches a control at: the analysis's min_confidence. */
  min_confidence: number;
  frameworks: Array<{
    framework: string;
    controls_total: number;
    assessable: number;
    not_reached: string[];
    reachable_by_other_tools: number;
    suggested_rules: SuggestedRule[];
    more_suggested_rules: number;
  }>;
}

/** Plans of registry frameworks depend on the registry, the tools and the floor only: kept per thread. */
const planCache = new Map<string, CoveragePlan['frameworks'][number]>();
const PLAN_CACHE_ENTRIES = 512;

export function analysisCoveragePlan(
  index: ToolRuleIndex,
  registryControls: (code: string) => readonly PlanControl[],
  frameworks: readonly string[],
  sources: readonly string[],
  floor: number,
  custom: readonly CustomFrameworkFacts[],
): CoveragePlan {
  const tools = sources.filter((source) => index.byTool.has(source));
  const toolSet = new Set(tools);
  const toolKey = tools.join(',');
  return {
    tools,
    other_sources: sources.filter((source) => !index.byTool.has(source)),
    min_confidence: floor,
    frameworks: frameworks.map((code) => {
      const own = custom.find((framework) => framework.code === code);
      const key = `${code}|${toolKey}|${floor}`;
      const kept = own ? undefined : planCache.get(key);
      if (kept) return kept;
      const controls: readonly PlanControl[] = own
        ? own.controls.map((control) => ({ id: control.id, mapped_signals: control.mappings }))
        : registryControls(code);
      const plan = frameworkPlan(index, controls, toolSet, floor, { cacheKey: own ? undefined : code, suggestions: PLAN_SUGGESTIONS });
      const entry = {
        framework: code,
        controls_total: plan.controls_total,
        assessable: plan.assessable.length,
        not_reached: plan.not_reached,
        reachable_by_other_tools: plan.reachable_by_other_tools,
        suggested_rules: plan.suggested_rules,
        more_suggested_rules: plan.suggested_total - plan.suggested_rules.length,
      };
      if (!own) {
        planCache.set(key, entry);
        if (planCache.size > PLAN_CACHE_ENTRIES) planCache.delete(planCache.keys().next().value!);
      }
      return entry;
    }),
  };
}

/** The default min_confidence of an analysis, which most plans use. */
const DEFAULT_PLAN_FLOOR = 0.7;

/**
 * Builds, ahead of the first analysis, what every plan of this thread reads: the rule index (about
 * 16,000 registry reads) and each gap-analysis framework's rule reach at the default floor. Called
 * when a thread has nothing else to do, so no analysis waits the quarter of a second it takes.
 */
export function warmCoveragePlans(registry: Registry): void {
  const index = toolRuleIndexOf(registry);
  const facts = gapIndexOf(registry);
  for (const code of registry.gapFrameworkCodes())
    frameworkPlan(index, facts.controls(code), new Set(), DEFAULT_PLAN_FLOOR, { cacheKey: code, suggestions: 0 });
}
