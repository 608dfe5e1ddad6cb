import type { Registry } from '../registry/registry.js';
import { remediationStepsFrom, type GapRegistry, type RemediationStep } from './engine.js';
import type { Effort } from './scoring.js';
import { type Severity } from '../core/vocabulary.js';

type SignalFacts = ReturnType<GapRegistry['signal']> & {};
type MappingFacts = ReturnType<GapRegistry['mappingsOfSignal']>[number];
type ControlFacts = ReturnType<GapRegistry['control']> & {};
type FrameworkFacts = ReturnType<GapRegistry['framework']> & {};
type ControlSignals = ReturnType<GapRegistry['controls']>[number];

/**
 * The slice of the registry that gap analysis reads, held in plain Maps. Built once per thread
 * from the compiled LMDB index (about 100 ms) and kept for the thread's life: the registry is
 * immutable while a process runs, and an analysis of 10,000 findings then does no decoding.
 */
export class GapIndex implements GapRegistry {
  private readonly signals = new Map<string, SignalFacts>();
  private readonly mappings = new Map<string, MappingFacts[]>();
  private readonly steps = new Map<string, RemediationStep[]>();
  private readonly frameworks = new Map<string, FrameworkFacts>();
  private readonly controlFacts = new Map<string, Map<string, ControlFacts>>();
  private readonly controlSignals = new Map<string, ControlSignals[]>();

  constructor(registry: Registry) {
    for (const id of registry.signalIds()) {
      const signal = registry.signal(id)!;
      this.signals.set(id, { id, title: signal.title, severity: signal.severity as Severity, effort: signal.effort as Effort, remediation_hint: signal.remediation_hint });
      this.mappings.set(
        id,
        registry.mappingsOfSignal(id).map((m) => ({ framework: m.framework, control_id: m.control_id, relationship: m.relationship, confidence: m.confidence })),
      );
      this.steps.set(id, remediationStepsFrom(registry.templatesOfSignal(id).flatMap((t) => t.remediation.steps), signal.remediation_hint));
    }
    for (const framework of registry.frameworks()) {
      if (!framework.gap_analysis) continue;
      this.frameworks.set(framework.code, { code: framework.code, name: framework.name, version: framework.version, control_count: framework.control_count });
      const controls = registry.controls(framework.code);
      this.controlSignals.set(
        framework.code,
        controls.map((c) => ({ id: c.id, mapped_signals: c.mapped_signals.map((s) => ({ signal_id: s.signal_id, confidence: s.confidence })) })),
      );
      const facts = new Map<string, ControlFacts>();
      for (const control of controls) {
        const detail = registry.control(framework.code, control.id)!;
        facts.set(control.id, { id: detail.id, title: detail.title, category: detail.category, guidance: detail.guidance, evidence: [...detail.evidence] });
      }
      this.controlFacts.set(framework.code, facts);
    }
  }

  signal(id: string) {
    return this.signals.get(id);
  }

  mappingsOfSignal(id: string) {
    return this.mappings.get(id) ?? [];
  }

  framework(code: string) {
    return this.frameworks.get(code);
  }

  control(framework: string, id: string) {
    return this.controlFacts.get(framework)?.get(id);
  }

  controls(framework: string) {
    return this.controlSignals.get(framework) ?? [];
  }

  remediationSteps(signalId: string) {
    return this.steps.get(signalId) ?? [];
  }
}

const indexes = new WeakMap<Registry, GapIndex>();

/** The thread's gap index for a registry, built on first use. */
export function gapIndexOf(registry: Registry): GapIndex {
  let index = indexes.get(registry);
  if (!index) indexes.set(registry, (index = new GapIndex(registry)));
  return index;
}
