/**
 * The delivery worker (docs/webhooks.md): takes due deliveries from the outbox the analyses'
 * commits write, sends them, and records each attempt. It runs on the HTTP thread but holds it
 * for nothing: every wait is I/O, at most `concurrency` attempts run at once (and `perWebhook` to
 * one receiver, so a slow one cannot take every slot), each bounded by its deadline and answer
 * size. A store that does not answer only delays deliveries; they stay due.
 */
import type { Logger } from '../log.js';
import type { ClaimedDelivery, WebhookStore } from '../store/webhooks.js';
import { nextAttemptAt } from './backoff.js';
import { attemptDelivery, type AttemptSettings } from './deliver.js';

export interface DispatcherOptions extends AttemptSettings {
  /** Attempts at once on this node. */
  concurrency: number;
  /** Attempts at once to one webhook. */
  perWebhook: number;
  /** How often the outbox is looked at besides the pokes of this node's commits (others' commits, retries). */
  pollMs: number;
  now: () => Date;
  log: Logger;
}

export class WebhookDispatcher {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perWebhook = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private looking = false;
  private lookAgain = false;
  private stopped = false;

  constructor(
    private readonly store: WebhookStore,
    private readonly options: DispatcherOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.poke(), this.options.pollMs);
    this.timer.unref();
    this.poke();
  }

  /** Looks at the outbox now (a commit wrote deliveries, or a slot came free). */
  poke(): void {
    if (this.stopped) return;
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    this.looking = true;
    this.fill()
      .catch((error) => this.options.log.warn({ err: error }, 'webhook outbox not read; deliveries wait for the next look'))
      .finally(() => {
        this.looking = false;
        if (this.lookAgain) {
          this.lookAgain = false;
          this.poke();
        }
      });
  }

  /** Stops taking deliveries and waits (at most `timeoutMs`) for the attempts under way; unfinished ones stay due. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(this.inFlight.values()), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** Attempts under way now. */
  get active(): number {
    return this.inFlight.size;
  }

  private async fill(): Promise<void> {
    const { concurrency, perWebhook } = this.options;
    while (!this.stopped && this.inFlight.size < concurrency) {
      const busy = [...this.perWebhook].filter(([, count]) => count >= perWebhook).map(([id]) => id);
      const wanted = concurrency - this.inFlight.size;
      // The lease outlasts an attempt's deadline, so no other node takes it while this one sends.
      const claimed = await this.store.claim(this.options.now(), wanted, { leaseMs: 3 * this.options.timeoutMs + 5000, busyWebhooks: busy });
      let started = 0;
      for (const delivery of claimed) {
        if (this.inFlight.has(delivery.id)) continue;
        started += 1;
        this.perWebhook.set(delivery.webhook_id, (this.perWebhook.get(delivery.webhook_id) ?? 0) + 1);
        const work = this.send(delivery).finally(() => {
          this.inFlight.delete(delivery.id);
          const left = (this.perWebhook.get(delivery.webhook_id) ?? 1) - 1;
          if (left) this.perWebhook.set(delivery.webhook_id, left);
          else this.perWebhook.delete(delivery.webhook_id);
          this.poke();
        });
        this.inFlight.set(delivery.id, work);
      }
      if (claimed.length < wanted || !started) return;
    }
  }

  private async send(delivery: ClaimedDelivery): Promise<void> {
    const attempt = delivery.attempts + 1;
    const result = await attemptDelivery(delivery, attempt, this.options);
    const now = this.options.now();
    const retryAt = result.delivered ? null : nextAttemptAt(Date.parse(delivery.created_at), attempt, now.getTime());
    try {
      await this.store.finish(delivery, {
        status: result.delivered ? 'delivered' : retryAt === null ? 'failed' : 'pending',
        attempted_at: now.toISOString(),
        next_attempt_at: retryAt === null ? null : new Date(retryAt).toISOString(),
        response_status: result.status,
        error: result.error,
      });
    } catch (error) {
      // Not recorded: the delivery is due again (at least once), and will be sent again.
      this.options.log.warn({ err: error, delivery: delivery.id }, 'webhook attempt not recorded; it will be made again');
    }
  }
}
