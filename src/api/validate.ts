/** POST /v1/validate and /v1/validate/batch (spec 4.3, 2.14): schema checks, no registry lookups. */
import { json, type Route, type RouteContext } from '../http/route.js';
import { BatchValidationResult, ValidateBatchBody, ValidateBody, ValidationResult, VALIDATION_SCHEMA_VERSION } from '../schemas/api.js';
import { validateItems, validateObject, type ValidateBatchTask } from '../validation/validator.js';

/** Batches up to this many items are checked in-thread; larger ones go to the worker pool (docs/api.md). */
export const INLINE_BATCH_MAX_ITEMS = 25;

function validate({ body }: RouteContext<unknown, ValidateBody>) {
  const checked = validateObject(body.schema, body.data);
  const result = { valid: checked === undefined, schema_type: body.schema, schema_version: VALIDATION_SCHEMA_VERSION };
  return json(checked ? { ...result, ...checked } : result);
}

async function validateBatch(ctx: RouteContext<unknown, ValidateBatchBody>) {
  const { body, services } = ctx;
  const task: ValidateBatchTask = { schema: body.schema, items: body.items };
  const outcome =
    body.items.length <= INLINE_BATCH_MAX_ITEMS
      ? validateItems(task.schema, task.items)
      : await services.pool.run('validateBatch', task, undefined, ctx.closed);
  return json({ schema_type: body.schema, schema_version: VALIDATION_SCHEMA_VERSION, ...outcome });
}

export const validateRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/validate',
    tier: 'community',
    tag: 'validation',
    summary: 'Check one object against the signal, finding, artifact or mapping schema',
    body: ValidateBody,
    response: ValidationResult,
    handler: validate,
  },
  {
    method: 'POST',
    path: '/v1/validate/batch',
    tier: 'community',
    tag: 'validation',
    summary: 'Check up to 100 objects against one schema; large batches run in the worker pool',
    body: ValidateBatchBody,
    response: BatchValidationResult,
    pooled: { bodiesOver: 0 },
    errors: ['service_busy', 'task_timeout'],
    handler: validateBatch,
  },
];
