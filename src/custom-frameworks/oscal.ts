/**
 * An OSCAL catalog (JSON, as NIST publishes SP 800-53 and others): every control, enhancements
 * included, becomes a control of the framework. Its `label` prop is its id (AC-2(1)), else its
 * OSCAL id; its group's title is its category; its statement part (with the sub-items and their
 * labels) is its description, its guidance part its guidance, the items of its assessment
 * objective its evidence. Parameters in prose read as "[Assignment: label]" or "[Selection: a;
 * b]". Withdrawn controls are left out. Props named csr-signal and csr-corresponds-to carry the
 * ties to evidence the catalog cannot express (docs/custom-frameworks.md).
 */
import { checkedControl, type Draft, type DraftControl } from './define.js';
import { frameworkInvalid } from './model.js';

interface OscalPart {
  id?: string;
  name?: string;
  prose?: string;
  props?: OscalProp[];
  parts?: OscalPart[];
}

interface OscalProp {
  name?: string;
  value?: string;
}

interface OscalParam {
  id?: string;
  label?: string;
  select?: { choice?: string[]; 'how-many'?: string };
}

interface OscalControl {
  id?: string;
  title?: string;
  props?: OscalProp[];
  params?: OscalParam[];
  parts?: OscalPart[];
  controls?: OscalControl[];
}

interface OscalGroup {
  id?: string;
  title?: string;
  groups?: OscalGroup[];
  controls?: OscalControl[];
}

const MAX_EVIDENCE_ITEMS = 50;
const MAX_EVIDENCE_TEXT = 1000;

export function isOscalCatalog(value: unknown): value is { catalog: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'catalog' in value;
}

export function readOscalCatalog(value: { catalog: unknown }): Draft {
  const catalog = value.catalog as { metadata?: { title?: unknown; version?: unknown; remarks?: unknown }; groups?: unknown; controls?: unknown };
  if (typeof catalog !== 'object' || catalog === null || Array.isArray(catalog))
    throw frameworkInvalid('oscal', { pointer: '/catalog' }, 'catalog must be an object');
  const metadata = catalog.metadata;
  if (typeof metadata !== 'object' || metadata === null)
    throw frameworkInvalid('oscal', { pointer: '/catalog/metadata' }, 'catalog.metadata is required (OSCAL catalogs carry title and version there)');
  const controls: DraftControl[] = [];
  const params = new Map<string, OscalParam>();

  const walkControls = (list: unknown, pointer: string, category: string) => {
    if (list === undefined) return;
    if (!Array.isArray(list)) throw frameworkInvalid('oscal', { pointer }, 'controls must be an array');
    list.forEach((item: unknown, i) => {
      const at = `${pointer}/${i}`;
      if (typeof item !== 'object' || item === null) throw frameworkInvalid('oscal', { pointer: at }, 'a control must be an object');
      const control = item as OscalControl;
      for (const param of control.params ?? []) if (param.id) params.set(param.id, param);
      if (!isWithdrawn(control)) controls.push(readControl(control, at, category, params));
      walkControls(control.controls, `${at}/controls`, category);
    });
  };
  const walkGroups = (list: unknown, pointer: string) => {
    if (list === undefined) return;
    if (!Array.isArray(list)) throw frameworkInvalid('oscal', { pointer }, 'groups must be an array');
    list.forEach((item: unknown, i) => {
      const at = `${pointer}/${i}`;
      if (typeof item !== 'object' || item === null) throw frameworkInvalid('oscal', { pointer: at }, 'a group must be an object');
      const group = item as OscalGroup;
      const category = typeof group.title === 'string' && group.title.trim() ? group.title.trim() : (group.id ?? 'General');
      walkControls(group.controls, `${at}/controls`, category);
      walkGroups(group.groups, `${at}/groups`);
    });
  };
  walkControls(catalog.controls, '/catalog/controls', 'General');
  walkGroups(catalog.groups, '/catalog/groups');

  return {
    format: 'oscal',
    name: typeof metadata.title === 'string' ? metadata.title.trim() : undefined,
    version: typeof metadata.version === 'string' ? metadata.version.trim() : undefined,
    description: typeof metadata.remarks === 'string' ? metadata.remarks.trim() : undefined,
    controls,
    at: (field) => (field === 'code' ? undefined : { pointer: `/catalog/metadata/${field === 'name' ? 'title' : 'version'}` }),
  };
}

function isWithdrawn(control: OscalControl): boolean {
  return (control.props ?? []).some((prop) => prop.name === 'status' && prop.value === 'withdrawn');
}

function readControl(control: OscalControl, pointer: string, category: string, params: ReadonlyMap<string, OscalParam>): DraftControl {
  const props = control.props ?? [];
  const label = props.find((prop) => prop.name === 'label')?.value;
  const id = (label ?? control.id ?? '').trim();
  const parts = control.parts ?? [];
  const text = (names: string[]) =>
    parts
      .filter((part) => names.includes(part.name ?? ''))
      .map((part) => partText(part, params))
      .join('\n')
      .trim();
  const evidence = parts
    .filter((part) => part.name === 'assessment-objective')
    .flatMap((part) => leafTexts(part, params))
    .slice(0, MAX_EVIDENCE_ITEMS)
    .map((item) => (item.length > MAX_EVIDENCE_TEXT ? `${item.slice(0, MAX_EVIDENCE_TEXT - 1)}…` : item));
  // csr-signal: "SIGNAL_ID [relationship] [confidence]"; csr-corresponds-to: "FRAMEWORK:CONTROL_ID relationship".
  const signalProps: number[] = [];
  const correspondenceProps: number[] = [];
  const signals: Array<Record<string, unknown>> = [];
  const correspondsTo: Array<Record<string, unknown>> = [];
  props.forEach((prop, i) => {
    if (prop.name === 'csr-signal' && typeof prop.value === 'string') {
      const [signal_id, relationship, confidence] = prop.value.trim().split(/\s+/);
      signals.push({ signal_id, ...(relationship && { relationship }), ...(confidence && { confidence: Number(confidence) }) });
      signalProps.push(i);
    } else if (prop.name === 'csr-corresponds-to' && typeof prop.value === 'string') {
      const words = prop.value.trim().split(/\s+/);
      const relationship = words.length > 1 ? words.pop()! : '';
      const target = words.join(' ');
      const colon = target.indexOf(':');
      correspondsTo.push({ framework: target.slice(0, Math.max(0, colon)), control_id: target.slice(colon + 1), relationship });
      correspondenceProps.push(i);
    }
  });
  const input: Record<string, unknown> = {
    id,
    title: (control.title ?? '').trim(),
    description: text(['statement']),
    category,
    guidance: text(['guidance']),
    evidence,
    signals,
    corresponds_to: correspondsTo,
  };
  return checkedControl('oscal', input, (field, index) => {
    if (field === 'signals' && index !== undefined && signalProps[index] !== undefined) return { pointer: `${pointer}/props/${signalProps[index]}` };
    if (field === 'corresponds_to' && index !== undefined && correspondenceProps[index] !== undefined)
      return { pointer: `${pointer}/props/${correspondenceProps[index]}` };
    if (field === 'id') return { pointer: label === undefined ? `${pointer}/id` : `${pointer}/props/${props.findIndex((prop) => prop.name === 'label')}` };
    if (field === 'title') return { pointer: `${pointer}/title` };
    return { pointer: `${pointer}/parts` };
  });
}

/** A part's prose and its sub-parts', each line led by the part's label ("a.", "1."). */
function partText(part: OscalPart, params: ReadonlyMap<string, OscalParam>, depth = 0): string {
  const label = (part.props ?? []).find((prop) => prop.name === 'label')?.value;
  const own = [label, part.prose && withParams(part.prose, params)].filter(Boolean).join(' ');
  const lines = own ? [`${'  '.repeat(Math.max(0, depth - 1))}${own}`] : [];
  for (const sub of part.parts ?? []) {
    const text = partText(sub, params, depth + 1);
    if (text) lines.push(text);
  }
  return lines.join('\n');
}

/** The prose of the innermost parts: one item each. */
function leafTexts(part: OscalPart, params: ReadonlyMap<string, OscalParam>): string[] {
  if (part.parts?.length) return part.parts.flatMap((sub) => leafTexts(sub, params));
  return part.prose ? [withParams(part.prose, params).trim()] : [];
}

const INSERT = /\{\{\s*insert:\s*param,\s*([^}\s]+)\s*\}\}/g;

function withParams(prose: string, params: ReadonlyMap<string, OscalParam>): string {
  return prose.replace(INSERT, (_, id: string) => {
    const param = params.get(id);
    if (param?.select?.choice?.length)
      return `[Selection${param.select['how-many'] === 'one-or-more' ? ' (one or more)' : ''}: ${param.select.choice.join('; ')}]`;
    return `[Assignment: ${param?.label ?? id}]`;
  });
}
