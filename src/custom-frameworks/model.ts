/**
 * A custom framework as the service holds it, its limits, and the one error every input form
 * reports a bad definition with (docs/custom-frameworks.md, docs/limits.md).
 */
import { ApiError } from '../core/errors.js';
import type { CustomControl, CustomFrameworkFormat } from '../schemas/custom-framework.js';

export type { CustomControl, CustomFrameworkFormat } from '../schemas/custom-framework.js';

/** docs/limits.md states these; the JSON form's schema repeats the per-control ones. */
export const CUSTOM_FRAMEWORK_LIMITS = {
  frameworksPerAccount: 50,
  controlsPerFramework: 2000,
  signalsPerControl: 50,
  correspondencesPerControl: 20,
  evidenceItemsPerControl: 50,
} as const;

/** Codes a custom framework may not take: they name fixed paths under /v1/frameworks. */
export const RESERVED_CODES: ReadonlySet<string> = new Set(['TEMPLATE']);

/** The category of a control that names none. */
export const DEFAULT_CATEGORY = 'General';

/** A framework's content, whichever form it came in. */
export interface CustomFrameworkContent {
  code: string;
  name: string;
  version: string;
  description: string;
  controls: CustomControl[];
}

export interface CustomFrameworkVersion {
  revision: number;
  version: string;
  created_at: string;
  control_count: number;
  source_format: CustomFrameworkFormat;
}

/** What listing and analysis need of a framework, without its controls. */
export interface CustomFrameworkSummary {
  account: string;
  code: string;
  name: string;
  version: string;
  description: string;
  /** 1 at creation, one more at each new version. */
  revision: number;
  control_count: number;
  source_format: CustomFrameworkFormat;
  created_at: string;
  updated_at: string;
  versions: CustomFrameworkVersion[];
}

export interface StoredCustomFramework extends CustomFrameworkSummary {
  controls: CustomControl[];
}

/** Where in the input a problem is: a JSON pointer, or a spreadsheet row and column. */
export type SourceLocation = { pointer: string } | { row: number; column: string; columnLetter: string };

/** 400 framework_invalid: what is wrong, and where. */
export function frameworkInvalid(
  format: CustomFrameworkFormat,
  at: SourceLocation | undefined,
  reason: string,
  extra: { control_id?: string; limit?: number } = {},
): ApiError {
  const details: Record<string, unknown> = { format };
  let location = 'the top level';
  if (at && 'pointer' in at) {
    details.pointer = at.pointer;
    location = at.pointer === '' ? 'the top level' : at.pointer;
  } else if (at) {
    details.row = at.row;
    details.column = at.column;
    details.column_letter = at.columnLetter;
    location = `row ${at.row}, column ${at.column} (${at.columnLetter})`;
  }
  details.location = location;
  details.reason = reason;
  if (extra.control_id !== undefined) details.control_id = extra.control_id;
  if (extra.limit !== undefined) details.limit = extra.limit;
  return new ApiError('framework_invalid', details);
}

/** The categories of a framework's controls, in the order they first appear. */
export function controlCategories(controls: readonly CustomControl[]): string[] {
  return [...new Set(controls.map((control) => control.category))];
}
