import fc from 'fast-check';
import { Entries, RawJson, type JsonTree } from './json-text.js';

/**
 * Values no honest client sends, for any slot of a body: the wrong type, numbers at and beyond
 * the limits of a double, deep nesting, long and strange strings, keys that reach prototypes.
 */

/** Nesting written as text, so neither the fuzzer nor its shrinker recurses over it. */
export function nested(depth: number, kind: 'array' | 'object', inner = '1'): RawJson {
  const open = kind === 'array' ? '[' : '{"a":';
  const close = kind === 'array' ? ']' : '}';
  return new RawJson(open.repeat(depth) + inner + close.repeat(depth), `${depth} nested ${kind}s`);
}

export const deepNesting: fc.Arbitrary<JsonTree> = fc
  .tuple(fc.oneof(fc.integer({ min: 2, max: 200 }), fc.integer({ min: 200, max: 20_000 })), fc.constantFrom('array' as const, 'object' as const))
  .map(([depth, kind]) => nested(depth, kind));

/** Numbers as JSON text: beyond double range, past 2^53, negative zero, long fractions. */
export const extremeNumber: fc.Arbitrary<JsonTree> = fc.oneof(
  fc.constantFrom(
    ...[
      '1e400',
      '-1e400',
      '1e-400',
      '-0',
      '9007199254740993',
      '-9007199254740993',
      '1.7976931348623157e308',
      '5e-324',
      '0.30000000000000004',
      '1E2',
      '123456789012345678901234567890',
    ].map((text) => new RawJson(text, text)),
  ),
  fc.integer({ min: 20, max: 2_000 }).map((digits) => new RawJson('9'.repeat(digits), `${digits}-digit integer`)),
  fc.double({ noNaN: true }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_VALUE, -Number.MAX_VALUE, Number.EPSILON, 2 ** 31, -(2 ** 31), 2 ** 32),
);

/** Strings past every length limit (the default body limit is 1 MiB). */
export const longString: fc.Arbitrary<JsonTree> = fc
  .tuple(fc.integer({ min: 257, max: 300_000 }), fc.constantFrom('A', 'é', '✓', '😀', ' ', '\\'))
  .map(([length, unit]) => new RawJson(JSON.stringify(unit.repeat(length)), `${length} × ${JSON.stringify(unit)}`));

const awkwardText = [
  '',
  ' ',
  '\u0000',
  '\u202e',
  '\ufeff',
  '＝1+1',
  '=HYPERLINK("x")',
  '\r\n',
  '\n=1',
  '../../etc/passwd',
  '%00',
  '%s%s%n',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, not a template
  '${jndi:x}',
  '<script>',
  "'; DROP TABLE",
  'null',
  'undefined',
  'NaN',
  '-0',
  'CSR-',
  '*',
  '?',
  '#',
  '\t',
  'İ',
  'ß',
  'ﬃ',
  'Å',
  'ǅ',
  '\u0130\u0131',
];

/** Unicode a validator or lower-caser may handle badly, including lone surrogates (as escapes). */
export const strangeString: fc.Arbitrary<JsonTree> = fc.oneof(
  fc.constantFrom(...awkwardText),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\\ud800', '\\udfff', '\\ud83d', 'a\\udc00b').map((sequence) => new RawJson(`"${sequence}"`, `lone surrogate ${sequence}`)),
);

/** Keys that reach Object.prototype when code copies or merges objects naively. */
export const prototypeKeys: fc.Arbitrary<JsonTree> = fc
  .tuple(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf'),
    fc.oneof(fc.constant({ polluted: true } as JsonTree), fc.constant(null), fc.constant('x')),
  )
  .map(([key, value]) => new Entries([[key, key === 'constructor' ? { prototype: value } : value]]));

/** Anything of the wrong type for the slot, chosen among all JSON types. */
export const anyJson: fc.Arbitrary<JsonTree> = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonTree>;

export const hostileValue: fc.Arbitrary<JsonTree> = fc.oneof(
  { arbitrary: anyJson, weight: 3 },
  { arbitrary: extremeNumber, weight: 2 },
  { arbitrary: strangeString, weight: 2 },
  { arbitrary: deepNesting, weight: 1 },
  { arbitrary: longString, weight: 1 },
  { arbitrary: prototypeKeys, weight: 1 },
);

/** Bodies that are not JSON, or not quite: each is sent as the bytes given. */
export function brokenJson(validText: fc.Arbitrary<string>): fc.Arbitrary<{ bytes: Buffer; label: string }> {
  const fixed: Array<[string, string]> = [
    ['', 'empty body'],
    ['   \n', 'whitespace only'],
    ['{', 'lone brace'],
    ['{"a":1,}', 'trailing comma'],
    ["{'a':1}", 'single quotes'],
    ['{"a":NaN}', 'NaN'],
    ['{"a":Infinity}', 'Infinity'],
    ['{"a":1}/* c */', 'comment'],
    ['{"a":"\u0001"}', 'raw control character in a string'],
    ['{"a":"\\x41"}', 'bad escape'],
    ['null', 'null'],
    ['[]', 'top-level array'],
    ['"text"', 'top-level string'],
    ['12', 'top-level number'],
    ['true', 'top-level boolean'],
    ['{"a":1}{"b":2}', 'two documents'],
  ];
  return fc.oneof(
    fc.constantFrom(...fixed).map(([text, label]) => ({ bytes: Buffer.from(text), label })),
    fc.tuple(validText, fc.nat()).map(([text, cut]) => ({ bytes: Buffer.from(text.slice(0, cut % Math.max(1, text.length))), label: 'truncated' })),
    validText.map((text) => ({ bytes: Buffer.from(`${text}garbage`), label: 'trailing garbage' })),
    validText.map((text) => ({ bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), label: 'byte order mark' })),
    fc.tuple(validText, fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x00])).map(([text, bad]) => {
      const bytes = Buffer.from(text);
      const at = bytes.indexOf('"') + 1;
      return {
        bytes: Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]),
        label: `invalid UTF-8 ${Buffer.from(bad).toString('hex')}`,
      };
    }),
    fc.integer({ min: 1_000, max: 100_000 }).map((depth) => ({ bytes: Buffer.from('['.repeat(depth)), label: `${depth} unclosed arrays` })),
  );
}
