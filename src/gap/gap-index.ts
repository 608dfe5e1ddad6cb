import type { Registry } from '../registry/registry.js';
import { remediationStepsFrom, type GapRegistry, type SignalRemediation } from './engine.js';
import type { Effort } from './scoring.js';
import { SEVERITY_RANK, type Severity } from '../core/vocabulary.js';

type SignalFacts = ReturnType<GapRegistry['signal']> & {};
type MappingFacts = ReturnType<GapRegistry['mappingsOfSignal']>[number];
type ControlFacts = ReturnType<GapRegistry['control']> & {};
type FrameworkFacts = ReturnType<GapRegistry['framework']> & {};
type ControlSignals = ReturnType<GapRegistry['controls']>[number];

/** What a gap index is built from: the registry's read model, or the same facts read at compile time. */
type GapSource = Pick<Registry, 'signalIds' | 'signal' | 'mappingsOfSignal' | 'templatesOfSignal' | 'frameworks' | 'controls' | 'control'>;

/**
 * The facts gap analysis reads, as one compact record: each signal with its mappings (framework,
 * control, relationship, confidence) and its remediation steps' texts, each assessed framework
 * with its controls (their prose and mapped signals). The compiler stores it in the registry
 * (layout key `gap-facts`), so a thread decodes one record at start instead of every signal,
 * mapping and control record: with registry 2.0.0 (6,724 signals, 54,928 mappings) about 1.4 s
 * of decoding and garbage per thread became one decode.
 */
export interface GapFacts {
  signals: Array<{
    id: string;
    title: string;
    severity: Severity;
    effort: Effort;
    remediation_hint: string;
    /** [framework, control id, relationship, confidence] */
    mappings: Array<[string, string, MappingFacts['relationship'], number]>;
    /** The texts of the signal's finding templates' remediation steps, in template order. */
    steps: string[];
  }>;
  frameworks: Array<{
    code: string;
    name: string;
    version: string;
    control_count: number;
    controls: Array<{ id: string; title: string; category: string; guidance: string; evidence: string[]; mapped_signals: Array<[string, number]> }>;
  }>;
}

/** Reads the gap facts from a registry's records (the compiler stores the result). */
export function gapFactsOf(registry: GapSource): GapFacts {
  const signals = registry.signalIds().map((id) => {
    const signal = registry.signal(id)!;
    return {
      id,
      title: signal.title,
      severity: signal.severity as Severity,
      effort: signal.effort as Effort,
      remediation_hint: signal.remediation_hint,
      mappings: registry
        .mappingsOfSignal(id)
        .map((m): [string, string, MappingFacts['relationship'], number] => [m.framework, m.control_id, m.relationship, m.confidence]),
      steps: registry.templatesOfSignal(id).flatMap((t) => t.remediation.steps),
    };
  });
  const frameworks = registry
    .frameworks()
    .filter((framework) => framework.gap_analysis)
    .map((framework) => ({
      code: framework.code,
      name: framework.name,
      version: framework.version,
      control_count: framework.control_count,
      controls: registry.controls(framework.code).map((control) => {
        const detail = registry.control(framework.code, control.id)!;
        return {
          id: detail.id,
          title: detail.title,
          category: detail.category,
          guidance: detail.guidance,
          evidence: [...detail.evidence],
          mapped_signals: control.mapped_signals.map((s): [string, number] => [s.signal_id, s.confidence]),
        };
      }),
    }));
  return { signals, frameworks };
}

/**
 * The slice of the registry that gap analysis reads, held in plain Maps. Built once per thread
 * from the registry's gap facts and kept for the thread's life: the registry is immutable while
 * a process runs, and an analysis of 10,000 findings then does no decoding.
 */
export class GapIndex implements GapRegistry {
  private readonly signals = new Map<string, SignalFacts>();
  private readonly mappings = new Map<string, MappingFacts[]>();
  private readonly steps = new Map<string, SignalRemediation>();
  private readonly frameworks = new Map<string, FrameworkFacts>();
  private readonly controlFacts = new Map<string, Map<string, ControlFacts>>();
  private readonly controlSignals = new Map<string, ControlSignals[]>();

  constructor(facts: GapFacts) {
    // Remediation order is the registry's, so it is sorted once per thread, not in every analysis
    // (where it was a noticeable share of a large one: docs/benchmarks.md).
    const inRemediationOrder = [...facts.signals].sort(
      (a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    const remediationOrder = new Map(inRemediationOrder.map((signal, order) => [signal.id, order]));
    for (const signal of facts.signals) {
      const { id } = signal;
      this.signals.set(id, {
        id,
        title: signal.title,
        severity: signal.severity,
        effort: signal.effort,
        remediation_hint: signal.remediation_hint,
        remediation_order: remediationOrder.get(id)!,
      });
      this.mappings.set(
        id,
        signal.mappings.map(([framework, control_id, relationship, confidence]) => ({ framework, control_id, relationship, confidence })),
      );
      this.steps.set(id, remediationStepsFrom(signal.steps, signal.remediation_hint));
    }
    for (const framework of facts.frameworks) {
      this.frameworks.set(framework.code, { code: framework.code, name: framework.name, version: framework.version, control_count: framework.control_count });
      this.controlSignals.set(
        framework.code,
        framework.controls.map((c) => ({ id: c.id, mapped_signals: c.mapped_signals.map(([signal_id, confidence]) => ({ signal_id, confidence })) })),
      );
      const controls = new Map<string, ControlFacts>();
      for (const control of framework.controls) {
        controls.set(control.id, { id: control.id, title: control.title, category: control.category, guidance: control.guidance, evidence: control.evidence });
      }
      this.controlFacts.set(framework.code, controls);
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
    return this.steps.get(signalId) ?? NO_STEPS;
  }
}

const NO_STEPS: SignalRemediation = { fixes: [], rescanCheck: false };

const indexes = new WeakMap<Registry, GapIndex>();

/** The thread's gap index for a registry, built on first use. */
export function gapIndexOf(registry: Registry): GapIndex {
  let index = indexes.get(registry);
  if (!index) indexes.set(registry, (index = new GapIndex(registry.gapFacts())));
  return index;
}
