/**
 * A framework body in whichever form it came: XLSX (by its media type, or a zip's first bytes),
 * CSV (text/csv), else JSON: an OSCAL catalog when its root has `catalog`, the JSON form otherwise.
 */
import { parseJsonBody } from '../core/json-body.js';
import type { Draft } from './define.js';
import { readJsonForm } from './json-form.js';
import { isOscalCatalog, readOscalCatalog } from './oscal.js';
import { readCsv, readXlsx } from './spreadsheet.js';

export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** What POST and PUT /v1/frameworks take (Content-Type, parameters ignored). */
export const FRAMEWORK_MEDIA_TYPES = ['application/json', 'text/csv', XLSX_MEDIA_TYPE, 'application/octet-stream'] as const;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

export async function readFrameworkBody(body: Buffer, contentType: string | undefined): Promise<Draft> {
  const type = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  if (type === XLSX_MEDIA_TYPE || body.subarray(0, 4).equals(ZIP_MAGIC)) return readXlsx(body);
  if (type === 'text/csv') return readCsv(body);
  // Octet streams: JSON when they start like JSON, else CSV.
  if (
    type === 'application/octet-stream' &&
    !/^\s*[[{]/.test(
      body
        .subarray(0, 64)
        .toString('latin1')
        .replace(/^\uFEFF|^ï»¿/, ''),
    )
  )
    return readCsv(body);
  const value = parseJsonBody(body);
  return isOscalCatalog(value) ? readOscalCatalog(value) : readJsonForm(value);
}
