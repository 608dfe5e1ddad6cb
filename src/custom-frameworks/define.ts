/**
 * The rules every input form ends with: code, name and version from the file or the query, the
 * limits, unique control ids, and references that exist in the registry (signals, built-in
 * controls). A problem is reported where the client wrote it: JSON pointer, or row and column.
 */
import { firstProblemOf } from '../core/validation.js';
import { CORRESPONDENCE_RELATIONSHIPS, CUSTOM_CODE_PATTERN, CustomControlInput, type CustomFrameworkFormat } from '../schemas/custom-framework.js';
import { controlOf } from './json-form.js';
import { CUSTOM_FRAMEWORK_LIMITS, frameworkInvalid, RESERVED_CODES, type CustomControl, type CustomFrameworkContent, type SourceLocation } from './model.js';

/** A control read from a file, with where its fields were written. */
export interface DraftControl {
  control: CustomControl;
  /** Where a field of the JSON form (and an entry of a list field) was written. */
  at(field: string, index?: number): SourceLocation;
}

/** A framework read from a file, before the rules above are checked. */
export interface Draft {
  format: CustomFrameworkFormat;
  code?: string;
  name?: string;
  version?: string;
  description?: string;
  controls: DraftControl[];
  /** Where the code, name and version fields would be (JSON: the top level; files without them: none). */
  at(field: 'code' | 'name' | 'version'): SourceLocation | undefined;
}

/** What the registry must answer for references to be checked. */
export interface ReferenceRegistry {
  signal(id: string): unknown;
  resolveFrameworkCode(input: string): string | undefined;
  control(framework: string, id: string): unknown;
}

export interface FrameworkMeta {
  code?: string;
  name?: string;
  version?: string;
  description?: string;
}

const CODE = new RegExp(CUSTOM_CODE_PATTERN);

/**
 * The framework a draft defines, or 400 framework_invalid. `meta` holds the query's fields; where
 * the file names one too, both must agree. A PUT names the code in its path, and the current
 * version gives the name and description a file without them keeps (`current`).
 */
export function defineFramework(
  draft: Draft,
  meta: FrameworkMeta,
  registry: ReferenceRegistry,
  current?: { code: string; name: string; description: string },
): CustomFrameworkContent {
  const pathCode = current?.code;
  const { format } = draft;
  const field = (name: 'code' | 'name' | 'version'): string | undefined => {
    const fromFile = draft[name];
    const fromQuery = meta[name];
    if (
      fromFile !== undefined &&
      fromQuery !== undefined &&
      fromFile !== fromQuery &&
      !(name === 'code' && fromFile.toUpperCase() === fromQuery.toUpperCase())
    ) {
      throw frameworkInvalid(format, draft.at(name), `${name} is ${JSON.stringify(fromFile)} in the file and ${JSON.stringify(fromQuery)} in the query`);
    }
    return fromFile ?? fromQuery;
  };
  let code = field('code');
  if (pathCode !== undefined) {
    if (code !== undefined && code.toUpperCase() !== pathCode.toUpperCase())
      throw frameworkInvalid(format, draft.at('code'), `code ${code} differs from the path's ${pathCode}`);
    code = pathCode;
  }
  if (code === undefined) throw frameworkInvalid(format, draft.at('code'), 'code is required: give it in the body, or as ?code= where the file has none');
  if (!CODE.test(code))
    throw frameworkInvalid(
      format,
      draft.at('code'),
      `code ${JSON.stringify(code)} must be 2–32 letters, digits, dots, hyphens or underscores, starting with a letter`,
    );
  const name = field('name') ?? current?.name;
  if (!name) throw frameworkInvalid(format, draft.at('name'), 'name is required: give it in the body, or as ?name= where the file has none');
  const version = field('version');
  if (!version) throw frameworkInvalid(format, draft.at('version'), 'version is required: give it in the body, or as ?version= where the file has none');

  const { controls } = draft;
  if (controls.length === 0) throw frameworkInvalid(format, undefined, 'the framework has no controls');
  if (controls.length > CUSTOM_FRAMEWORK_LIMITS.controlsPerFramework) {
    throw frameworkInvalid(
      format,
      controls[CUSTOM_FRAMEWORK_LIMITS.controlsPerFramework].at('id'),
      `the framework has ${controls.length} controls; the limit is ${CUSTOM_FRAMEWORK_LIMITS.controlsPerFramework}`,
      {
        limit: CUSTOM_FRAMEWORK_LIMITS.controlsPerFramework,
      },
    );
  }
  const firstOfId = new Map<string, DraftControl>();
  for (const draftControl of controls) {
    const { control } = draftControl;
    const earlier = firstOfId.get(control.id);
    if (earlier)
      throw frameworkInvalid(format, draftControl.at('id'), `control id ${control.id} is used twice (first at ${describe(earlier.at('id'))})`, {
        control_id: control.id,
      });
    firstOfId.set(control.id, draftControl);
    checkReferences(format, draftControl, registry);
  }
  return {
    code: code.toUpperCase(),
    name,
    version,
    description: draft.description ?? meta.description ?? current?.description ?? '',
    controls: controls.map((c) => c.control),
  };
}

/** Signals and built-in controls must exist; framework codes become the registry's canonical ones. */
function checkReferences(format: CustomFrameworkFormat, draft: DraftControl, registry: ReferenceRegistry): void {
  const { control } = draft;
  const fail = (field: 'signals' | 'corresponds_to', index: number, reason: string, limit?: number) =>
    frameworkInvalid(format, draft.at(field, index), reason, { control_id: control.id, limit });
  if (control.signals.length > CUSTOM_FRAMEWORK_LIMITS.signalsPerControl) {
    throw fail(
      'signals',
      CUSTOM_FRAMEWORK_LIMITS.signalsPerControl,
      `control ${control.id} names ${control.signals.length} signals; the limit is ${CUSTOM_FRAMEWORK_LIMITS.signalsPerControl}`,
      CUSTOM_FRAMEWORK_LIMITS.signalsPerControl,
    );
  }
  if (control.corresponds_to.length > CUSTOM_FRAMEWORK_LIMITS.correspondencesPerControl) {
    throw fail(
      'corresponds_to',
      CUSTOM_FRAMEWORK_LIMITS.correspondencesPerControl,
      `control ${control.id} names ${control.corresponds_to.length} built-in controls; the limit is ${CUSTOM_FRAMEWORK_LIMITS.correspondencesPerControl}`,
      CUSTOM_FRAMEWORK_LIMITS.correspondencesPerControl,
    );
  }
  const signals = new Set<string>();
  control.signals.forEach((link, index) => {
    if (registry.signal(link.signal_id) === undefined) throw fail('signals', index, `signal ${link.signal_id} is not in the registry`);
    if (signals.has(link.signal_id)) throw fail('signals', index, `signal ${link.signal_id} is named twice for control ${control.id}`);
    signals.add(link.signal_id);
  });
  const targets = new Set<string>();
  control.corresponds_to.forEach((target, index) => {
    if (!(CORRESPONDENCE_RELATIONSHIPS as readonly string[]).includes(target.relationship)) {
      throw fail('corresponds_to', index, `relationship ${JSON.stringify(target.relationship)} must be one of ${CORRESPONDENCE_RELATIONSHIPS.join(', ')}`);
    }
    const framework = registry.resolveFrameworkCode(target.framework);
    if (framework === undefined) throw fail('corresponds_to', index, `framework ${target.framework} is not a registry framework`);
    if (registry.control(framework, target.control_id) === undefined) throw fail('corresponds_to', index, `${framework} has no control ${target.control_id}`);
    const key = `${framework}\u0000${target.control_id}`;
    if (targets.has(key)) throw fail('corresponds_to', index, `${framework} ${target.control_id} is named twice for control ${control.id}`);
    targets.add(key);
    target.framework = framework;
  });
}

function describe(at: SourceLocation): string {
  return 'pointer' in at ? at.pointer : `row ${at.row}`;
}

/** A code the registry has (in any of its spellings), or one reserved for a fixed path. */
export function codeTakenByRegistry(code: string, registry: Pick<ReferenceRegistry, 'resolveFrameworkCode'>): boolean {
  return registry.resolveFrameworkCode(code) !== undefined || RESERVED_CODES.has(code.toUpperCase());
}

/**
 * A control a file reader assembled in the JSON form's shape, checked against that form's schema
 * (lengths, id syntax, relationships, confidence range): a problem is reported where `at` says
 * its field was written.
 */
export function checkedControl(format: CustomFrameworkFormat, input: Record<string, unknown>, at: DraftControl['at']): DraftControl {
  const problem = firstProblemOf(CustomControlInput, input);
  if (problem) {
    const [field, index] = problem.pointer.split('/').filter(Boolean);
    const id = typeof input.id === 'string' ? input.id : undefined;
    throw frameworkInvalid(
      format,
      at(field ?? 'id', index === undefined || !/^\d+$/.test(index) ? undefined : Number(index)),
      `${problem.parameter} ${problem.reason}`,
      {
        ...(id !== undefined && { control_id: id }),
        ...(problem.limit !== undefined && { limit: problem.limit }),
      },
    );
  }
  return { control: controlOf(input as CustomControlInput), at };
}
