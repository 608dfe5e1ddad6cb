import type { AnalysisIndexEntry } from '../types.js';
import {
  PREVIOUS_LOOKBACK,
  postureRecordOf,
  type AnalysisPostureWrite,
  type HistoryQuery,
  type PostureRecord,
  type PostureStore,
  type PreviousAssessment,
} from '../posture.js';
import { deliveriesOf } from '../webhooks.js';
import type { DataStore } from './database.js';

type ScopeKey = [string, string, string, string];

const NO_CONTROLS = { compliant: [], partially_compliant: [], non_compliant: [] };

/**
 * An analysis's posture record and webhook deliveries, written inside the transaction that
 * indexes the analysis (LmdbAnalysisStore.save), so a crash keeps all or none of them. LMDB runs
 * write transactions one at a time: the previous assessments read here are those committed before.
 * Returns the number of deliveries written.
 */
export function writePosture(store: DataStore, entry: AnalysisIndexEntry, posture: AnalysisPostureWrite): number {
  const { facts } = posture;
  const previous = new Map<string, PreviousAssessment>();
  if (facts.scope !== null) {
    const key: ScopeKey = [entry.account, facts.scope, entry.created_at, entry.id];
    if (!laterAnalysisStored(store, key)) findPrevious(store, key, Object.keys(facts.frameworks), previous);
    store.scopeAnalyses.put(key, postureRecordOf(entry, facts));
    store.postureExpiry.put([Date.parse(entry.expires_at), ...key], true);
    store.analysisControls.put(entry.id, facts.controls);
  }
  const webhooks = [];
  for (const { value } of store.webhooks.getRange({ start: [entry.account, ''], end: [entry.account, '\uffff'] })) webhooks.push(value);
  if (!webhooks.length) return 0;
  const deliveries = deliveriesOf(entry.account, webhooks, posture.events(previous));
  for (const delivery of deliveries) {
    const deliveryKey: [string, string, string] = [delivery.account, delivery.webhook_id, delivery.id];
    store.webhookDeliveries.put(deliveryKey, delivery);
    store.webhookDue.put([Date.parse(delivery.next_attempt_at!), delivery.id], deliveryKey);
  }
  return deliveries.length;
}

/** An analysis of the scope created after this one is already stored (its commit was late). */
function laterAnalysisStored(store: DataStore, key: ScopeKey): boolean {
  for (const { key: later } of store.scopeAnalyses.getRange({ start: key, end: [key[0], key[1], '\uffff', ''], limit: 2 })) {
    if (later[3] !== key[3]) return true;
  }
  return false;
}

/** For each framework, the scope's latest live analysis before this one that assessed it, within PREVIOUS_LOOKBACK analyses. */
function findPrevious(store: DataStore, key: ScopeKey, frameworks: string[], into: Map<string, PreviousAssessment>): void {
  const wanted = new Set(frameworks);
  const createdAt = Date.parse(key[2]);
  for (const { value } of store.scopeAnalyses.getRange({ start: key, end: [key[0], key[1], ''], reverse: true, limit: PREVIOUS_LOOKBACK })) {
    if (value.id === key[3] || Date.parse(value.expires_at) <= createdAt) continue;
    let controls: ReturnType<DataStore['analysisControls']['get']>;
    for (const code of wanted) {
      const point = value.frameworks[code];
      if (!point) continue;
      controls ??= store.analysisControls.get(value.id);
      into.set(code, { analysis_id: value.id, created_at: value.created_at, point, controls: controls?.[code] ?? NO_CONTROLS });
    }
    for (const code of into.keys()) wanted.delete(code);
    if (!wanted.size) return;
  }
}

/** A bound of created_at as the keys hold it (toISOString); the caller's text may use another offset. */
const isoBound = (value: string | undefined, fallback: string) => (value === undefined ? fallback : new Date(value).toISOString());

/** Posture records in the embedded LMDB: a scope's history is one range over [account, scope, created_at, id]. */
export class LmdbPostureStore implements PostureStore {
  constructor(private readonly store: DataStore) {}

  async history(account: string, scope: string, query: HistoryQuery, now: Date): Promise<{ total: number; items: PostureRecord[] }> {
    const from = isoBound(query.from, '');
    // Inclusive: every id sorts before \uffff.
    const to = isoBound(query.to, '\uffff');
    const live: PostureRecord[] = [];
    const nowMs = now.getTime();
    for (const { value } of this.store.scopeAnalyses.getRange({ start: [account, scope, from, ''], end: [account, scope, to, '\uffff'] })) {
      if (Date.parse(value.expires_at) <= nowMs) continue;
      if (query.framework !== undefined && !value.frameworks[query.framework]) continue;
      live.push(value);
    }
    return { total: live.length, items: live.slice(Math.max(0, live.length - query.limit)) };
  }

  async sweep(now: Date): Promise<number> {
    const due: Array<[number, string, string, string, string]> = [];
    for (const { key } of this.store.postureExpiry.getRange({ start: [0, '', '', '', ''], end: [now.getTime(), '\uffff', '\uffff', '\uffff', '\uffff'] }))
      due.push(key);
    if (!due.length) return 0;
    await this.store.root.transaction(() => {
      for (const key of due) {
        const [, account, scope, createdAt, id] = key;
        this.store.postureExpiry.remove(key);
        this.store.scopeAnalyses.remove([account, scope, createdAt, id]);
        this.store.analysisControls.remove(id);
      }
    });
    return due.length;
  }
}
