/**
 * When a failed delivery is tried again (docs/webhooks.md): 5 s after the first attempt, then
 * three times as long each time up to 2 hours between attempts (5 s, 15 s, 45 s, 2 min 15 s, …),
 * each spread by ±10 % so that a receiver coming back is not met by every delivery at once; none
 * later than 24 hours after the event, when the delivery is given up.
 */
export const FIRST_RETRY_MS = 5_000;
export const MAX_RETRY_INTERVAL_MS = 2 * 3_600_000;
export const RETRY_WINDOW_MS = 24 * 3_600_000;

/** The next attempt after `attempts` failed ones, or null when it would fall past the window. */
export function nextAttemptAt(eventAt: number, attempts: number, now: number, random: () => number = Math.random): number | null {
  const interval = Math.min(FIRST_RETRY_MS * 3 ** Math.max(0, attempts - 1), MAX_RETRY_INTERVAL_MS);
  const next = now + Math.round(interval * (0.9 + 0.2 * random()));
  return next > eventAt + RETRY_WINDOW_MS ? null : next;
}
