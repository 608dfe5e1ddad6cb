import type { ExportFormat } from '../schemas/export.js';
import type { Tier } from '../tiers.js';

/**
 * What each export format needs and how it travels. The spec tiers csv at Pro and xlsx at Teams
 * (Variant A) and leaves pdf untiered; pdf is rendered in the worker pool like xlsx, so it takes
 * xlsx's tier (docs/exports.md). json is the stored result, available wherever GET :id is (Pro).
 */
export interface ExportFormatSpec {
  tier: Tier;
  contentType: string;
  extension: string;
  /** Where the file is produced: streamed from the main thread, or rendered whole in a worker. */
  rendering: 'stream' | 'worker';
}

export const EXPORT_FORMAT_SPECS: Record<ExportFormat, ExportFormatSpec> = {
  json: { tier: 'pro', contentType: 'application/json; charset=utf-8', extension: 'json', rendering: 'stream' },
  csv: { tier: 'pro', contentType: 'text/csv; charset=utf-8', extension: 'csv', rendering: 'stream' },
  pdf: { tier: 'teams', contentType: 'application/pdf', extension: 'pdf', rendering: 'worker' },
  xlsx: { tier: 'teams', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx', rendering: 'worker' },
};
