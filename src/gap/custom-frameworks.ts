import type { GapRegistry, SignalRemediation } from './engine.js';
import type { MappingRelationship } from './scoring.js';

/**
 * An account's own framework as the engine reads it: its controls with the signal mappings they
 * have (direct, and inherited from built-in controls: src/custom-frameworks/inheritance.ts). Passed
 * in as data with each analysis, beside the registry's facts.
 */
export interface CustomFrameworkFacts {
  code: string;
  name: string;
  version: string;
  /** Which stored version of the framework this is (1 at creation, one more per new version). */
  revision: number;
  controls: Array<{
    id: string;
    title: string;
    category: string;
    guidance: string;
    evidence: string[];
    mappings: Array<{ signal_id: string; relationship: MappingRelationship; confidence: number }>;
  }>;
}

type FrameworkFacts = NonNullable<ReturnType<GapRegistry['framework']>>;
type ControlFacts = NonNullable<ReturnType<GapRegistry['control']>>;
type ControlSignals = ReturnType<GapRegistry['controls']>[number];
type MappingFacts = ReturnType<GapRegistry['mappingsOfSignal']>[number];

/**
 * The registry's facts with custom frameworks beside them: a custom framework's code, controls
 * and mappings answer as a built-in framework's would; everything else is the registry's.
 * Made per analysis; `base` is the registry's own, for what the engine keeps between analyses.
 */
export class WithCustomFrameworks implements GapRegistry {
  private readonly frameworks = new Map<string, FrameworkFacts & { custom: { revision: number } }>();
  private readonly controlFacts = new Map<string, Map<string, ControlFacts>>();
  private readonly controlSignals = new Map<string, ControlSignals[]>();
  private readonly mappings = new Map<string, MappingFacts[]>();

  constructor(
    readonly base: GapRegistry,
    custom: readonly CustomFrameworkFacts[],
  ) {
    for (const framework of custom) {
      const { code } = framework;
      this.frameworks.set(code, {
        code,
        name: framework.name,
        version: framework.version,
        control_count: framework.controls.length,
        custom: { revision: framework.revision },
      });
      const controls = new Map<string, ControlFacts>();
      const signals: ControlSignals[] = [];
      for (const control of framework.controls) {
        controls.set(control.id, { id: control.id, title: control.title, category: control.category, guidance: control.guidance, evidence: control.evidence });
        signals.push({ id: control.id, mapped_signals: control.mappings.map((m) => ({ signal_id: m.signal_id, confidence: m.confidence })) });
        for (const mapping of control.mappings) {
          let list = this.mappings.get(mapping.signal_id);
          if (!list) this.mappings.set(mapping.signal_id, (list = []));
          list.push({ framework: code, control_id: control.id, relationship: mapping.relationship, confidence: mapping.confidence });
        }
      }
      this.controlFacts.set(code, controls);
      this.controlSignals.set(code, signals);
    }
  }

  isCustom(code: string): boolean {
    return this.frameworks.has(code);
  }

  signal(id: string) {
    return this.base.signal(id);
  }

  mappingsOfSignal(id: string) {
    const own = this.mappings.get(id);
    return own ? [...this.base.mappingsOfSignal(id), ...own] : this.base.mappingsOfSignal(id);
  }

  framework(code: string) {
    return this.frameworks.get(code) ?? this.base.framework(code);
  }

  control(framework: string, id: string) {
    const custom = this.controlFacts.get(framework);
    return custom ? custom.get(id) : this.base.control(framework, id);
  }

  controls(framework: string) {
    return this.controlSignals.get(framework) ?? this.base.controls(framework);
  }

  remediationSteps(signalId: string): SignalRemediation {
    return this.base.remediationSteps(signalId);
  }
}
