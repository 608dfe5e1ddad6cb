/** Framework crosswalks (spec 4.6, Pro): overlaps between frameworks, control pairs, signal coverage. */
import { Type } from '@sinclair/typebox';
import { invalidParameter, notFound } from '../core/errors.js';
import { json, type Route, type RouteContext } from '../http/route.js';
import { CROSSWALK_RELATIONSHIPS, type CrosswalkRelationship } from '../schemas/registry.js';
import { ControlCrosswalks, CrosswalkOverlaps, CrosswalkWindowMeta, SignalCoverageView } from '../schemas/api.js';
import { frameworkCodes, QuerySchema, registryMeta, resolveFramework, windowMeta, windowParams, type PageWindow } from './query.js';
import { StringEnum } from '../schemas/string-enum.js';

const FrameworkCode = (description: string) => Type.String({ minLength: 1, description: `${description} (gap-analysis or listing spelling, any case)` });

const OverlapsQuery = QuerySchema({
  framework_a: FrameworkCode('Gap-analysis framework code'),
  framework_b: FrameworkCode('Second gap-analysis framework code; requires framework_a'),
  include_controls: Type.Boolean({ default: false, description: 'With both frameworks: add the control crosswalks of the pair (up to limit)' }),
  ...windowParams(20, 100),
});

interface OverlapsQuery extends PageWindow {
  framework_a?: string;
  framework_b?: string;
  include_controls: boolean;
}

/**
 * Without a pair: the overlap list (all pairs, or the pairs of framework_a oriented from it), by
 * overlap percentage, highest first, with stats. With a pair: that pair's overlap.
 */
function overlaps({ query, services }: RouteContext<OverlapsQuery>) {
  const { registry } = services;
  const codes = registry.gapFrameworkCodes();
  if (query.framework_b !== undefined && query.framework_a === undefined) {
    throw invalidParameter('framework_a', undefined, { valid_values: codes, reason: 'is required when framework_b is given' });
  }
  const a = query.framework_a === undefined ? undefined : resolveFramework(registry, 'framework_a', query.framework_a, codes);
  const b = query.framework_b === undefined ? undefined : resolveFramework(registry, 'framework_b', query.framework_b, codes);
  const window = { limit: query.limit, offset: query.offset };
  const meta = registryMeta(registry);

  if (a !== undefined && b !== undefined) {
    if (a === b) throw invalidParameter('framework_b', query.framework_b, { reason: 'must differ from framework_a' });
    const overlap = registry.crosswalkOverlap(a, b);
    if (!overlap) throw notFound('Crosswalk', `${a} ${b}`);
    if (!query.include_controls) return json({ overlap }, meta);
    const controls = registry.controlCrosswalks(a, b, {}, window);
    return json({ overlap: { ...overlap, controls: controls.items } }, { ...meta, ...windowMeta(controls.total, window) });
  }

  const { overlaps: all, stats } = registry.crosswalkOverlaps();
  let matched = all;
  if (a !== undefined) {
    matched = all
      .filter((o) => o.framework_a === a || o.framework_b === a)
      .map((o) => (o.framework_a === a ? o : { ...o, framework_a: a, framework_b: o.framework_a }));
  }
  const items = matched.slice(window.offset, window.offset + window.limit);
  return json({ overlaps: items, stats }, { ...meta, ...windowMeta(matched.length, window) });
}

const ControlCrosswalksQuery = QuerySchema(
  {
    framework_a: FrameworkCode('Framework code of control_a'),
    framework_b: FrameworkCode('Framework code of control_b'),
    control_id: Type.String({ minLength: 1, description: 'A control of framework_a' }),
    min_strength: Type.Number({ minimum: 0, maximum: 1, default: 0 }),
    relationship: StringEnum(CROSSWALK_RELATIONSHIPS),
    ...windowParams(50, 200),
  },
  ['framework_a', 'framework_b'],
);

interface ControlCrosswalksQuery extends PageWindow {
  framework_a: string;
  framework_b: string;
  control_id?: string;
  min_strength: number;
  relationship?: CrosswalkRelationship;
}

/** Control pairs of two frameworks in catalog order of framework_a, then framework_b. */
function controlCrosswalks({ query, services }: RouteContext<ControlCrosswalksQuery>) {
  const { registry } = services;
  const a = resolveFramework(registry, 'framework_a', query.framework_a);
  const b = resolveFramework(registry, 'framework_b', query.framework_b);
  if (a === b) throw invalidParameter('framework_b', query.framework_b, { reason: 'must differ from framework_a' });
  const window = { limit: query.limit, offset: query.offset };
  const page = registry.controlCrosswalks(a, b, { control_id: query.control_id, min_strength: query.min_strength, relationship: query.relationship }, window);
  return json({ crosswalks: page.items, summary: page.summary }, { ...registryMeta(registry), ...windowMeta(page.total, window) });
}

const CoverageQuery = QuerySchema({
  signal_id: Type.String({ minLength: 1, description: 'One signal: answer with its coverage record' }),
  framework: FrameworkCode('Only signals mapped into this framework'),
  min_frameworks: Type.Integer({ minimum: 1, default: 2, description: 'Only signals mapped into at least this many gap-analysis frameworks' }),
  ...windowParams(50, 200),
});

interface CoverageQuery extends PageWindow {
  signal_id?: string;
  framework?: string;
  min_frameworks: number;
}

/** Signals in id order with the frameworks and controls they reach; or one signal's record. */
function signalCoverage({ query, services }: RouteContext<CoverageQuery>) {
  const { registry } = services;
  if (query.signal_id !== undefined) {
    const coverage = registry.signalCoverage(query.signal_id);
    if (!coverage) throw notFound('Signal', query.signal_id);
    return json(coverage, registryMeta(registry));
  }
  const framework = query.framework === undefined ? undefined : resolveFramework(registry, 'framework', query.framework, frameworkCodes(registry));
  const window = { limit: query.limit, offset: query.offset };
  const page = registry.signalCoverages({ framework, min_frameworks: query.min_frameworks }, window);
  const signals = page.items.map(({ is_multi_framework: _single, ...record }) => record);
  return json({ signals, summary: page.summary }, { ...registryMeta(registry), ...windowMeta(page.total, window) });
}

export const crosswalkRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/crosswalks',
    registryRead: true,
    tier: 'pro',
    tag: 'crosswalks',
    summary: 'Overlap between gap-analysis frameworks: the list with stats, or one pair',
    query: OverlapsQuery,
    response: CrosswalkOverlaps,
    errors: ['not_found'],
    meta: Type.Union([CrosswalkWindowMeta, Type.Object({ version: Type.String(), generated_at: Type.String() })]),
    handler: overlaps,
  },
  {
    method: 'GET',
    path: '/v1/crosswalks/controls',
    registryRead: true,
    tier: 'pro',
    tag: 'crosswalks',
    summary: 'Control-to-control crosswalks between two frameworks, with a relationship summary',
    query: ControlCrosswalksQuery,
    response: ControlCrosswalks,
    meta: CrosswalkWindowMeta,
    handler: controlCrosswalks,
  },
  {
    method: 'GET',
    path: '/v1/crosswalks/signals',
    registryRead: true,
    tier: 'pro',
    tag: 'crosswalks',
    summary: 'Signals that reach several frameworks, with a summary; or the coverage of one signal',
    query: CoverageQuery,
    response: SignalCoverageView,
    errors: ['not_found'],
    meta: Type.Union([CrosswalkWindowMeta, Type.Object({ version: Type.String(), generated_at: Type.String() })]),
    handler: signalCoverage,
  },
];
