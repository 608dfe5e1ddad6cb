/** The webhook variables (docs/webhooks.md): defaults, accepted spellings, and refusals naming the variable. */
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

t.test('defaults', async (t) => {
  t.match(loadConfig({}), { webhookAllowPrivate: false, webhookTimeoutMs: 10_000, webhookConcurrency: 8, webhookDelivery: true });
});

t.test('values', async (t) => {
  t.match(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'TRUE', WEBHOOK_TIMEOUT_MS: '1500', WEBHOOK_CONCURRENCY: '2', WEBHOOK_DELIVERY: 'off' }), {
    webhookAllowPrivate: true,
    webhookTimeoutMs: 1500,
    webhookConcurrency: 2,
    webhookDelivery: false,
  });
  t.match(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_DELIVERY: '0' }), { webhookAllowPrivate: true, webhookDelivery: false });
});

t.test('refusals name the variable', async (t) => {
  for (const [name, value] of [
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe'],
    ['WEBHOOK_DELIVERY', 'sometimes'],
    ['WEBHOOK_TIMEOUT_MS', '50'],
    ['WEBHOOK_CONCURRENCY', '0'],
  ]) {
    let problem: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      problem = error;
    }
    t.ok(problem instanceof ConfigError && problem.message.includes(name), `${name}=${value}: refused, naming the variable`);
  }
});
