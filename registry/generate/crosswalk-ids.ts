/**
 * Dotted control ids that passed through a spreadsheet as numbers lose a trailing zero: CIS
 * safeguard 3.10 becomes 3.1, which is another safeguard. CIS's published ISO/IEC 27001 mapping
 * came to us that way (the publisher's workbook, then its YAML, then the reference table).
 * The mapping lists safeguards in catalog order, so a collapsed id shows itself: "3.1" after
 * "3.9" can only be 3.10. import-catalogs.mjs restores such ids, and test/registry/crosswalk-ids
 * checks the sources with the same functions.
 */

/** Numeric order of dotted ids: 3.9 < 3.10 < 3.11 < 4.1. */
export function compareDotted(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? -1) - (y[i] ?? -1);
    if (d) return d;
  }
  return 0;
}

export interface RestoredId {
  /** Index of the row in the sequence. */
  row: number;
  from: string;
  to: string;
}

/**
 * Restores ids collapsed by a number parse, reading the sequence in its order: an id that falls
 * back below the one before it becomes the catalog id with its trailing zero (3.1 after 3.9 is
 * 3.10) when that id exists and keeps the order. Ids that are in order are never changed.
 */
export function restoreCollapsedIds(ids: readonly string[], catalog: ReadonlySet<string>): { ids: string[]; restored: RestoredId[] } {
  const out: string[] = [];
  const restored: RestoredId[] = [];
  for (const [row, id] of ids.entries()) {
    const previous = out[out.length - 1];
    const widened = `${id}0`;
    if (previous !== undefined && compareDotted(id, previous) < 0 && catalog.has(widened) && compareDotted(widened, previous) >= 0) {
      out.push(widened);
      restored.push({ row, from: id, to: widened });
    } else out.push(id);
  }
  return { ids: out, restored };
}

/** Rows of the sequence whose id falls below the one before it (the sequence is not in catalog order there). */
export function outOfOrder(ids: readonly string[]): number[] {
  const rows: number[] = [];
  for (let i = 1; i < ids.length; i++) if (compareDotted(ids[i], ids[i - 1]) < 0) rows.push(i);
  return rows;
}
