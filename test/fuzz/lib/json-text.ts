import fc from 'fast-check';

/**
 * A JSON value as the fuzzer builds it. Besides plain values it holds pieces JSON.stringify
 * cannot produce: raw text (numbers beyond double range, 20,000 levels of nesting, lone
 * surrogates), objects with repeated keys, and references to ids that exist only at run time
 * (an analysis of the calling account or of another account).
 */
export type JsonTree = null | boolean | number | string | JsonTree[] | JsonObject | RawJson | Entries | Ref;
export interface JsonObject {
  [key: string]: JsonTree;
}

/** Text written into the body as is; `label` is what a counterexample shows instead of the text. */
export class RawJson {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
  [fc.toStringMethod](): string {
    return `raw(${this.label})`;
  }
}

/** An object written with its pairs in order, repeats included. */
export class Entries {
  constructor(readonly pairs: ReadonlyArray<readonly [string, JsonTree]>) {}
  [fc.toStringMethod](): string {
    return `entries(${this.pairs.map(([key, value]) => `${JSON.stringify(key)}: ${fc.stringify(value)}`).join(', ')})`;
  }
}

/** Ids only the running service knows; the harness resolves them for the calling account. */
export type RefName = 'own-analysis' | 'foreign-analysis';
export class Ref {
  constructor(readonly name: RefName) {}
  [fc.toStringMethod](): string {
    return `ref(${this.name})`;
  }
}

export type Resolve = (ref: Ref) => string;

/** JSON text of a tree; repeated keys and raw pieces are written as given. */
export function toJsonText(tree: JsonTree, resolve: Resolve): string {
  if (tree instanceof RawJson) return tree.text;
  if (tree instanceof Ref) return JSON.stringify(resolve(tree));
  if (tree instanceof Entries) return `{${tree.pairs.map(([key, value]) => `${JSON.stringify(key)}:${toJsonText(value, resolve)}`).join(',')}}`;
  if (Array.isArray(tree)) return `[${tree.map((item) => toJsonText(item, resolve)).join(',')}]`;
  if (tree !== null && typeof tree === 'object') {
    // Own keys only, and __proto__ written as a plain key: JSON.parse makes it an own property.
    return `{${Object.keys(tree)
      .map((key) => `${JSON.stringify(key)}:${toJsonText(tree[key], resolve)}`)
      .join(',')}}`;
  }
  // JSON.stringify writes NaN and ±Infinity as null, which is what a client library would send.
  return JSON.stringify(tree) ?? 'null';
}

/** Whether the tree holds a reference to another account's analysis anywhere. */
export function mentions(tree: JsonTree, name: RefName): boolean {
  if (tree instanceof Ref) return tree.name === name;
  if (tree instanceof Entries) return tree.pairs.some(([, value]) => mentions(value, name));
  if (tree instanceof RawJson || tree === null || typeof tree !== 'object') return false;
  return (Array.isArray(tree) ? tree : Object.values(tree)).some((value) => mentions(value, name));
}
