import type { Registry } from './registry.js';

/** A scanner rule the registry maps, and the signals its finding templates name. */
export interface ToolRule {
  tool_id: string;
  rule_id: string;
  rule_name: string;
  signals: string[];
}

/** Every mapped rule, and which are each tool's: tool mappings → finding templates → signals. */
export interface ToolRuleIndex {
  rules: ToolRule[];
  /** Indices into `rules`, by tool id. */
  byTool: Map<string, number[]>;
  /** The registry's tool ids, sorted. */
  tools: string[];
}

const indexes = new WeakMap<Registry, ToolRuleIndex>();

/**
 * The rule index of a registry, built once per thread on first use: one read of each tool mapping
 * and finding template (about 16,000 records, a quarter of a second on a cold cache), which the
 * compiled gap facts do not hold.
 */
export function toolRuleIndexOf(registry: Registry): ToolRuleIndex {
  let index = indexes.get(registry);
  if (index) return index;
  const signalOfTemplate = new Map<string, string | undefined>();
  const byKey = new Map<string, ToolRule>();
  for (const id of registry.toolMappingIds()) {
    const mapping = registry.toolMapping(id);
    if (!mapping) continue;
    let signal = signalOfTemplate.get(mapping.finding_template_id);
    if (!signalOfTemplate.has(mapping.finding_template_id)) {
      signal = registry.findingTemplate(mapping.finding_template_id)?.signal_id;
      signalOfTemplate.set(mapping.finding_template_id, signal);
    }
    if (!signal) continue;
    const key = `${mapping.tool_id}\u0000${mapping.rule_id}`;
    let rule = byKey.get(key);
    if (!rule) byKey.set(key, (rule = { tool_id: mapping.tool_id, rule_id: mapping.rule_id, rule_name: mapping.rule_name, signals: [] }));
    if (!rule.signals.includes(signal)) rule.signals.push(signal);
  }
  const rules = [...byKey.values()];
  const byTool = new Map<string, number[]>();
  rules.forEach((rule, i) => {
    let list = byTool.get(rule.tool_id);
    if (!list) byTool.set(rule.tool_id, (list = []));
    list.push(i);
  });
  index = {
    rules,
    byTool,
    tools: registry
      .tools()
      .map((tool) => tool.id)
      .sort(),
  };
  indexes.set(registry, index);
  return index;
}
