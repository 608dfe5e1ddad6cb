/**
 * What exports need of an account's own frameworks, which the registry cannot give: their
 * controls (for the not-assessed lists) and evidence items, for the version an analysis assessed
 * while that version is still the stored one.
 */
import type { ControlCatalogue, EvidenceLookup } from '../export/model.js';
import type { RenderExportTask } from '../schemas/export.js';
import type { AnalysisIndexEntry, CustomFrameworkStore } from '../store/types.js';
import { resolvedFramework } from './account.js';
import type { InheritanceRegistry } from './inheritance.js';

export type CustomControls = NonNullable<RenderExportTask['customControls']>;

/** The controls of the custom frameworks an analysis assessed, for those still stored at the revision it used. */
export async function customControlsOf(
  store: CustomFrameworkStore,
  registry: InheritanceRegistry,
  entry: AnalysisIndexEntry,
): Promise<CustomControls | undefined> {
  if (!entry.custom_frameworks?.length) return undefined;
  const controls: CustomControls = {};
  for (const { code, revision } of entry.custom_frameworks) {
    const framework = await store.get(entry.account, code);
    if (!framework || framework.revision !== revision) continue;
    const resolved = resolvedFramework(framework, registry);
    controls[code] = framework.controls.map((control, i) => ({
      id: control.id,
      title: control.title,
      category: control.category,
      mapped_signals: resolved.controls[i].mappings.length,
      evidence: control.evidence,
    }));
  }
  return Object.keys(controls).length ? controls : undefined;
}

/** Evidence items: a custom framework's from its controls, the registry's otherwise. */
export function withCustomEvidence(lookup: EvidenceLookup, custom: CustomControls | undefined): EvidenceLookup {
  if (!custom) return lookup;
  const byFramework = new Map(Object.entries(custom).map(([code, controls]) => [code, new Map(controls.map((control) => [control.id, control.evidence]))]));
  return (framework, controlId) => {
    const own = byFramework.get(framework);
    return own ? own.get(controlId) : lookup(framework, controlId);
  };
}

/** Controls of a framework: a custom framework's as stored, the registry's otherwise. */
export function withCustomCatalogue(catalogue: ControlCatalogue, custom: CustomControls | undefined): ControlCatalogue {
  if (!custom) return catalogue;
  return (framework) => custom[framework]?.map(({ id, title, category, mapped_signals }) => ({ id, title, category, mapped_signals })) ?? catalogue(framework);
}
