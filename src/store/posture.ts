import type { AssessedControls, FrameworkPoint, PostureFacts } from '../gap/posture-facts.js';
import type { WebhookEventDraft } from './webhooks.js';

/**
 * Posture history (docs/posture.md): each analysis filed under a scope leaves a small record (its
 * frameworks' scores, statuses and coverage) and its assessed controls, written in the same commit
 * as the analysis and kept for as long as it is.
 */
export interface PostureRecord {
  id: string;
  account: string;
  scope: string;
  created_at: string;
  expires_at: string;
  overall: PostureFacts['overall'];
  frameworks: Record<string, FrameworkPoint>;
}

/** The scope's latest earlier analysis that assessed a framework, as regression events compare it. */
export interface PreviousAssessment {
  analysis_id: string;
  created_at: string;
  point: FrameworkPoint;
  controls: AssessedControls;
}

/**
 * What a stored analysis adds besides itself, in its own commit: its posture record (when it has a
 * scope) and the webhook deliveries of its events. `events` is given the scope's previous
 * assessment of each of the analysis's frameworks, read inside that commit (none without a scope,
 * and none when a later analysis of the scope is already stored: a late commit is no regression).
 */
export interface AnalysisPostureWrite {
  facts: PostureFacts;
  events(previous: ReadonlyMap<string, PreviousAssessment>): WebhookEventDraft[];
}

export interface HistoryQuery {
  /** Only analyses that assessed this framework (canonical code). */
  framework?: string;
  /** ISO 8601 bounds on created_at, both inclusive. */
  from?: string;
  to?: string;
  /** The newest this many of the window (returned oldest first). */
  limit: number;
}

/** The live posture records of a scope, oldest first. */
export interface PostureStore {
  history(account: string, scope: string, query: HistoryQuery, now: Date): Promise<{ total: number; items: PostureRecord[] }>;
  /** Removes the records of analyses expired by `now`; returns how many. */
  sweep(now: Date): Promise<number>;
}

/** How many earlier analyses of a scope a new one looks back through for each framework's previous assessment. */
export const PREVIOUS_LOOKBACK = 200;

/** The record of an analysis with a scope. */
export function postureRecordOf(entry: { id: string; account: string; created_at: string; expires_at: string }, facts: PostureFacts): PostureRecord {
  return {
    id: entry.id,
    account: entry.account,
    scope: facts.scope!,
    created_at: entry.created_at,
    expires_at: entry.expires_at,
    overall: facts.overall,
    frameworks: facts.frameworks,
  };
}
