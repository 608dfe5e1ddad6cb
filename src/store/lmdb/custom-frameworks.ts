import type { CustomFrameworkSummary, StoredCustomFramework } from '../../custom-frameworks/model.js';
import { nextVersion } from '../custom-frameworks.js';
import type { CreateFrameworkOutcome, CustomFrameworkStore } from '../types.js';
import type { DataStore } from './database.js';

/** Codes are at most 32 characters; a longer one (a path a client made up) cannot be stored, and LMDB keys are bounded. */
const MAX_CODE_LENGTH = 64;

/**
 * Custom frameworks in the embedded LMDB: the summary under [account, code], the controls apart
 * under the same key, so listing decodes no controls. Each write is one transaction, in which
 * the check (code taken, count at the limit, framework there) and the writes cannot interleave
 * with another request's.
 */
export class LmdbCustomFrameworkStore implements CustomFrameworkStore {
  constructor(private readonly store: DataStore) {}

  async list(account: string): Promise<CustomFrameworkSummary[]> {
    const items: CustomFrameworkSummary[] = [];
    for (const { value } of this.store.customFrameworks.getRange({ start: [account, ''], end: [account, '\uffff'] })) items.push(value);
    return items;
  }

  async get(account: string, code: string): Promise<StoredCustomFramework | undefined> {
    if (code.length > MAX_CODE_LENGTH) return undefined;
    const summary = this.store.customFrameworks.get([account, code]);
    const controls = summary && this.store.customFrameworkControls.get([account, code]);
    return summary && controls ? { ...summary, controls } : undefined;
  }

  async create(framework: StoredCustomFramework, limit: number): Promise<CreateFrameworkOutcome> {
    const { controls, ...summary } = framework;
    const key: [string, string] = [framework.account, framework.code];
    return this.store.root.transaction((): CreateFrameworkOutcome => {
      if (this.store.customFrameworks.get(key)) return { created: false, reason: 'exists' };
      const count = this.store.customFrameworks.getKeysCount({ start: [framework.account, ''], end: [framework.account, '\uffff'] });
      if (count >= limit) return { created: false, reason: 'limit', count };
      this.store.customFrameworks.put(key, summary);
      this.store.customFrameworkControls.put(key, controls);
      return { created: true };
    });
  }

  async replace(framework: StoredCustomFramework): Promise<StoredCustomFramework | undefined> {
    const key: [string, string] = [framework.account, framework.code];
    return this.store.root.transaction(() => {
      const current = this.store.customFrameworks.get(key);
      if (!current) return undefined;
      const next = nextVersion(current, framework);
      const { controls, ...summary } = next;
      this.store.customFrameworks.put(key, summary);
      this.store.customFrameworkControls.put(key, controls);
      return next;
    });
  }

  async delete(account: string, code: string): Promise<CustomFrameworkSummary | undefined> {
    if (code.length > MAX_CODE_LENGTH) return undefined;
    const key: [string, string] = [account, code];
    return this.store.root.transaction(() => {
      const current = this.store.customFrameworks.get(key);
      if (!current) return undefined;
      this.store.customFrameworks.remove(key);
      this.store.customFrameworkControls.remove(key);
      return current;
    });
  }
}
