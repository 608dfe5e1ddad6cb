import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './string-enum.js';

/** The export formats of spec 4.4, in the order error details list them. */
export const EXPORT_FORMATS = ['json', 'csv', 'pdf', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * A closed set as a plain `enum` rather than a union of literals, so that a bad value fails on the
 * `enum` keyword and the pipeline answers invalid_parameter with valid_values.
 */
const Format = StringEnum(EXPORT_FORMATS, { default: 'json', description: 'File format of the export' });

const FrameworkFilter = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 32,
  description: 'Only these frameworks of the analysis (codes in any accepted spelling)',
});

/** POST /v1/gap-analysis/:id/export (Variant A). `format` defaults to json as in Variant B. */
export const ExportBody = Type.Object(
  {
    format: Type.Optional(Format),
    options: Type.Optional(
      Type.Object(
        {
          include_remediation: Type.Optional(Type.Boolean({ default: true, description: 'Remediation columns and sections' })),
          include_evidence: Type.Optional(Type.Boolean({ default: false, description: 'Evidence requirement columns and sections' })),
          frameworks: Type.Optional(FrameworkFilter),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ExportBody = Static<typeof ExportBody>;

/**
 * GET /v1/gap-analysis/:id/export (Variant B): format and include_evidence, plus the Variant A
 * options as query parameters (a builder accepts the union of both variants' fields).
 */
export const ExportQuery = Type.Object({
  format: Type.Optional(Format),
  include_evidence: Type.Optional(Type.Boolean({ default: false })),
  include_remediation: Type.Optional(Type.Boolean({ default: true })),
  frameworks: Type.Optional(FrameworkFilter),
});
export type ExportQuery = Static<typeof ExportQuery>;

/** The json export file (OpenAPI): the stored result under an export header, no {data, meta} envelope of its own. */
export const ExportJsonFile = Type.Object({
  export: Type.Object({
    format: Type.Literal('json'),
    format_version: Type.String(),
    generated_at: Type.String({ format: 'date-time' }),
    analysis_id: Type.String(),
    account: Type.String(),
    filters: Type.Object({
      frameworks: Type.Union([Type.Array(Type.String()), Type.Null()]),
      include_remediation: Type.Boolean(),
      include_evidence: Type.Boolean(),
    }),
  }),
  data: Type.Unknown({ description: 'The analysis result (both variants), narrowed to the selected frameworks' }),
  meta: Type.Unknown({ description: 'The analysis meta: version, scoring_version, registry_version, processing_time_ms' }),
});

/** What the renderExport worker task receives: the stored analysis bytes and the resolved options. */
export interface RenderExportTask {
  /** A format the writer table renders in the pool (src/export/writers.ts). */
  format: ExportFormat;
  /** The stored create response, `{"data":…,"meta":…}` in UTF-8; transferred, not copied. */
  payload: Uint8Array;
  options: ResolvedExportOptions;
  /** Owner account and export time, for the cover page and the Summary sheet. */
  account: string;
  generatedAt: string;
  /**
   * The account's own frameworks the analysis assessed, where the version assessed is still
   * stored: their controls for the not-assessed lists and their evidence items (the registry has neither).
   */
  customControls?: Record<string, Array<{ id: string; title: string; category: string; mapped_signals: number; evidence: string[] }>>;
}

/** Export options after defaults and framework-code resolution. */
export interface ResolvedExportOptions {
  /** Canonical codes; undefined = every framework of the analysis. */
  frameworks?: string[];
  include_remediation: boolean;
  include_evidence: boolean;
}
