import type { CustomFrameworkSummary, StoredCustomFramework } from '../custom-frameworks/model.js';

/** A framework's next version over the current one: both stores apply this one rule. */
export function nextVersion(current: CustomFrameworkSummary, incoming: StoredCustomFramework): StoredCustomFramework {
  const revision = current.revision + 1;
  return {
    ...incoming,
    revision,
    created_at: current.created_at,
    versions: [
      ...current.versions,
      { revision, version: incoming.version, created_at: incoming.updated_at, control_count: incoming.control_count, source_format: incoming.source_format },
    ],
  };
}
