/**
 * Reads registry/sources: lists and hashes the files, parses YAML (js-yaml, core schema: about ten
 * times faster than the yaml package on our sources) and validates each file against
 * its TypeBox schema with ajv. A record that fails its schema is dropped (its error is reported
 * with file and JSON path) and its id is remembered, so later integrity checks do not report a
 * second, misleading "does not exist" for references to it.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import yaml from 'js-yaml';
import {
  ArtifactTypesFile,
  ControlProseFile,
  CrosswalkFile,
  FindingTemplatesFile,
  ObjectivesFile,
  FrameworkCatalogFile,
  RegistryMetaFile,
  RuleAliasesFile,
  SignalsFile,
  SupersessionsFile,
  ToolMappingsFile,
  ToolsFile,
  type ArtifactTypeSource,
  type FindingTemplateSource,
  type ToolSource,
} from '../../src/schemas/registry-source.js';
import type { Issues } from './issues.js';
import { byString } from './model.js';

// ajv-formats ships CommonJS with a default export property.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

export interface SourceFile {
  /** Path relative to the sources dir, with forward slashes. */
  rel: string;
  bytes: Buffer;
}

/** A record with where it came from, for error messages. */
export interface Located<T> {
  file: string;
  path: string;
  value: T;
}

/** One parsed file whose top level passed its schema, with the records that passed theirs. */
export interface ParsedFile<F, R> {
  file: string;
  doc: F;
  /** Records of the file's list that passed the schema, with their JSON paths. */
  records: Located<R>[];
}

type RecordOf<F, K extends keyof F> = F[K] extends ReadonlyArray<infer R> ? R : never;

export interface ParsedSources {
  meta?: RegistryMetaFile;
  frameworks: ParsedFile<FrameworkCatalogFile, RecordOf<FrameworkCatalogFile, 'controls'>>[];
  controlProse: ParsedFile<ControlProseFile, RecordOf<ControlProseFile, 'controls'>>[];
  signalFiles: ParsedFile<SignalsFile, RecordOf<SignalsFile, 'signals'>>[];
  crosswalks: ParsedFile<CrosswalkFile, RecordOf<CrosswalkFile, 'rows'>>[];
  artifactTypes: Located<ArtifactTypeSource>[];
  templates: Located<FindingTemplateSource>[];
  tools: Located<ToolSource>[];
  toolMappingFiles: ParsedFile<ToolMappingsFile, RecordOf<ToolMappingsFile, 'mappings'>>[];
  ruleAliasFiles: ParsedFile<RuleAliasesFile, RecordOf<RuleAliasesFile, 'aliases'>>[];
  supersessionFiles: ParsedFile<SupersessionsFile, RecordOf<SupersessionsFile, 'supersessions'>>[];
  objectiveFiles: ParsedFile<ObjectivesFile, RecordOf<ObjectivesFile, 'objectives'>>[];
  /** tool id → the tool's real rule ids, from rule-ids/<tool>.txt. */
  ruleIds: Map<string, Set<string>>;
  /** Per kind, ids that exist in the sources but could not be used (see UnusableIds). */
  unusable: {
    signals: UnusableIds;
    templates: UnusableIds;
    artifactTypes: UnusableIds;
    tools: UnusableIds;
    frameworks: UnusableIds;
    objectives: UnusableIds;
  };
}

/**
 * Ids of one kind whose records exist but failed a check. A reference to one of them is not
 * reported as "does not exist": the record's own error already explains it. When a whole file
 * of the kind is unreadable (YAML error), any id might have been in it.
 */
export class UnusableIds {
  private readonly ids = new Set<string>();
  private unreadableFile = false;

  add(id: string): void {
    this.ids.add(id);
  }

  addUnreadableFile(): void {
    this.unreadableFile = true;
  }

  has(id: string): boolean {
    return this.unreadableFile || this.ids.has(id);
  }
}

/** Every file under the sources dir (dot files skipped), in path order with a header file before its parts. */
export function listSourceFiles(sourcesDir: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.')) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push({ rel: relative(sourcesDir, full).split(sep).join('/'), bytes: readFileSync(full) });
    }
  };
  walk(sourcesDir);
  return out.sort((a, b) => byString(withoutExtension(a.rel), withoutExtension(b.rel)) || byString(a.rel, b.rel));
}

/** signals/HIPAA sorts before signals/HIPAA-2, so a domain's header file is read before its parts. */
const withoutExtension = (rel: string) => rel.replace(/\.[^./]+$/, '');

/** sha256 over every file's path and bytes plus the compiler's own fingerprint: decides staleness. */
export function hashSources(files: SourceFile[], compilerFingerprint: string): string {
  const hash = createHash('sha256');
  hash.update(`compiler\0${compilerFingerprint}\0`);
  for (const file of files) {
    hash.update(`${file.rel}\0${file.bytes.length}\0`);
    hash.update(file.bytes);
  }
  return hash.digest('hex');
}

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
addFormats(ajv);

const validators = new Map<TSchema, ValidateFunction>();
function validatorOf(schema: TSchema): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

function describe(error: ErrorObject): { path: string; message: string } {
  const at = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { path: `${at}/${(error.params as { missingProperty: string }).missingProperty}`, message: 'is required' };
    case 'additionalProperties': {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      const allowed = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return {
        path: `${at}/${extra}`,
        message: allowed.length ? `is not a known field (allowed: ${allowed.join(', ')})` : 'is not a known field',
      };
    }
    case 'enum':
      return { path: at, message: `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` };
    case 'type':
      return {
        path: at,
        message: `must be ${String((error.params as { type: unknown }).type)
          .split(',')
          .join(' or ')}`,
      };
    default:
      return { path: at, message: error.message ?? 'is invalid' };
  }
}

const LIST_INDEX = /^\/[^/]+\/(\d+)(?:\/|$)/;

/**
 * Validates one document. Returns the indexes of the list records that failed, or undefined when
 * the file itself is unusable (an error outside the list records).
 */
function validateDocument(file: string, doc: unknown, schema: TSchema, listKey: string, issues: Issues): Set<number> | undefined {
  const validate = validatorOf(schema);
  if (validate(doc)) return new Set();
  const badRecords = new Set<number>();
  let fileBroken = false;
  for (const error of validate.errors ?? []) {
    const { path, message } = describe(error);
    issues.error(file, path || '/', message);
    const match = LIST_INDEX.exec(error.instancePath);
    if (match && error.instancePath.startsWith(`/${listKey}/`)) badRecords.add(Number(match[1]));
    else fileBroken = true;
  }
  return fileBroken ? undefined : badRecords;
}

/**
 * A copy of a schema-valid value with object keys in the schema's property order (records, which
 * have no declared properties, in sorted key order). Every compiled record is then built with
 * one key order whatever order an author wrote the fields in, so the content hash can be taken
 * over plain JSON.
 */
export function orderBySchema(schema: unknown, value: unknown): unknown {
  const s = (schema ?? {}) as {
    properties?: Record<string, unknown>;
    items?: unknown;
    patternProperties?: Record<string, unknown>;
    additionalProperties?: unknown;
  };
  if (Array.isArray(value)) return value.map((item, i) => orderBySchema(Array.isArray(s.items) ? s.items[i] : s.items, item));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (s.properties) {
    for (const key of Object.keys(s.properties)) if (key in object) out[key] = orderBySchema(s.properties[key], object[key]);
  } else {
    const valueSchema = s.patternProperties ? Object.values(s.patternProperties)[0] : s.additionalProperties;
    for (const key of Object.keys(object).sort()) out[key] = orderBySchema(valueSchema, object[key]);
  }
  return out;
}

/**
 * Typographic punctuation becomes plain ASCII (curly quotes, en and em dashes, ellipsis, no-break
 * space): the same text then reads the same in JSON, CSV and the PDF's standard fonts, and the
 * serialized analyses stay one-byte strings, which are cheaper to encode.
 */
const TYPOGRAPHY: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2026': '...',
  '\u00A0': ' ',
};

export function plainTypography(text: string): string {
  return text.replace(/[\u2018\u2019\u201C\u201D\u2013\u2014\u2026\u00A0]/g, (ch) => TYPOGRAPHY[ch]);
}

function parseYaml(file: SourceFile, issues: Issues): unknown {
  let value: unknown;
  try {
    value = yaml.load(plainTypography(file.bytes.toString('utf8')), { schema: yaml.CORE_SCHEMA });
  } catch (error) {
    if (!(error instanceof yaml.YAMLException)) throw error;
    const at = error.mark ? ` at line ${error.mark.line + 1}, column ${error.mark.column + 1}` : '';
    issues.error(file.rel, '', `YAML error${at}: ${error.reason}`);
    return undefined;
  }
  if (value === null || value === undefined) {
    issues.error(file.rel, '', 'file is empty');
    return undefined;
  }
  return value;
}

function idOf(record: unknown): string | undefined {
  const id = (record as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
}

/** Parses and validates a file with a list of records under listKey; undefined when unusable. */
function parseListFile<F, R>(file: SourceFile, schema: TSchema, listKey: string, issues: Issues, unusable?: UnusableIds): ParsedFile<F, R> | undefined {
  const raw = parseYaml(file, issues);
  if (raw === undefined) {
    unusable?.addUnreadableFile();
    return undefined;
  }
  const bad = validateDocument(file.rel, raw, schema, listKey, issues);
  const doc = orderBySchema(schema, raw);
  const list = (doc as Record<string, unknown>)[listKey];
  const records = Array.isArray(list) ? (list as unknown[]) : [];
  if (!bad) {
    for (const record of records) {
      const id = idOf(record);
      if (id) unusable?.add(id);
    }
    return undefined;
  }
  const located: Located<R>[] = [];
  records.forEach((record, i) => {
    if (bad.has(i)) {
      const id = idOf(record);
      if (id) unusable?.add(id);
    } else {
      located.push({ file: file.rel, path: `/${listKey}/${i}`, value: record as R });
    }
  });
  return { file: file.rel, doc: doc as F, records: located };
}

const stemOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');

export function parseSources(files: SourceFile[], issues: Issues): ParsedSources {
  const parsed: ParsedSources = {
    frameworks: [],
    controlProse: [],
    signalFiles: [],
    crosswalks: [],
    artifactTypes: [],
    templates: [],
    tools: [],
    toolMappingFiles: [],
    ruleAliasFiles: [],
    supersessionFiles: [],
    objectiveFiles: [],
    ruleIds: new Map(),
    unusable: {
      signals: new UnusableIds(),
      templates: new UnusableIds(),
      artifactTypes: new UnusableIds(),
      tools: new UnusableIds(),
      frameworks: new UnusableIds(),
      objectives: new UnusableIds(),
    },
  };
  const { unusable } = parsed;
  let sawMeta = false;
  for (const file of files) {
    const dir = file.rel.includes('/') ? file.rel.slice(0, file.rel.indexOf('/')) : '';
    const isYaml = file.rel.endsWith('.yaml');
    if (dir === 'rule-ids' && file.rel.endsWith('.txt')) {
      const ids = file.bytes
        .toString('utf8')
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('#'));
      parsed.ruleIds.set(stemOf(file.rel), new Set(ids));
      continue;
    }
    if (!isYaml) {
      issues.warn(file.rel, '', 'ignored: not a .yaml source file');
      continue;
    }
    switch (dir) {
      case '':
        if (file.rel === 'registry.yaml') {
          sawMeta = true;
          const doc = parseYaml(file, issues);
          if (doc !== undefined && validateDocument(file.rel, doc, RegistryMetaFile, '', issues)?.size === 0) {
            parsed.meta = orderBySchema(RegistryMetaFile, doc) as RegistryMetaFile;
          }
        } else if (file.rel === 'artifact-types.yaml') {
          const result = parseListFile<ArtifactTypesFile, ArtifactTypeSource>(file, ArtifactTypesFile, 'artifact_types', issues, unusable.artifactTypes);
          if (result) parsed.artifactTypes.push(...result.records);
        } else if (file.rel === 'tools.yaml') {
          const result = parseListFile<ToolsFile, ToolSource>(file, ToolsFile, 'tools', issues, unusable.tools);
          if (result) parsed.tools.push(...result.records);
        } else {
          issues.warn(file.rel, '', 'ignored: unknown source file');
        }
        break;
      case 'frameworks': {
        const result = parseListFile<FrameworkCatalogFile, RecordOf<FrameworkCatalogFile, 'controls'>>(file, FrameworkCatalogFile, 'controls', issues);
        if (result) parsed.frameworks.push(result);
        else unusable.frameworks.add(stemOf(file.rel));
        break;
      }
      case 'controls': {
        const result = parseListFile<ControlProseFile, RecordOf<ControlProseFile, 'controls'>>(file, ControlProseFile, 'controls', issues);
        if (result) parsed.controlProse.push(result);
        break;
      }
      case 'signals': {
        const result = parseListFile<SignalsFile, RecordOf<SignalsFile, 'signals'>>(file, SignalsFile, 'signals', issues, unusable.signals);
        if (result) parsed.signalFiles.push(result);
        break;
      }
      case 'crosswalks': {
        const result = parseListFile<CrosswalkFile, RecordOf<CrosswalkFile, 'rows'>>(file, CrosswalkFile, 'rows', issues);
        if (result) parsed.crosswalks.push(result);
        break;
      }
      case 'finding-templates': {
        const result = parseListFile<FindingTemplatesFile, FindingTemplateSource>(file, FindingTemplatesFile, 'templates', issues, unusable.templates);
        if (result) parsed.templates.push(...result.records);
        break;
      }
      case 'tool-mappings': {
        const result = parseListFile<ToolMappingsFile, RecordOf<ToolMappingsFile, 'mappings'>>(file, ToolMappingsFile, 'mappings', issues);
        if (result) parsed.toolMappingFiles.push(result);
        break;
      }
      case 'rule-aliases': {
        const result = parseListFile<RuleAliasesFile, RecordOf<RuleAliasesFile, 'aliases'>>(file, RuleAliasesFile, 'aliases', issues);
        if (result) parsed.ruleAliasFiles.push(result);
        break;
      }
      case 'supersessions': {
        const result = parseListFile<SupersessionsFile, RecordOf<SupersessionsFile, 'supersessions'>>(file, SupersessionsFile, 'supersessions', issues);
        if (result) parsed.supersessionFiles.push(result);
        break;
      }
      case 'objectives': {
        const result = parseListFile<ObjectivesFile, RecordOf<ObjectivesFile, 'objectives'>>(file, ObjectivesFile, 'objectives', issues);
        if (result) parsed.objectiveFiles.push(result);
        else unusable.objectives.addUnreadableFile();
        break;
      }
      default:
        issues.warn(file.rel, '', 'ignored: unknown source directory');
    }
  }
  if (!sawMeta) issues.error('registry.yaml', '', 'file is missing (registry_version, spec_version, ocsf_version)');
  return parsed;
}
