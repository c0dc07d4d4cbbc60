import { AGGREGATION_OPS, QUERY_OPERATORS } from '../../aggregate/plan.js';
import { compileAggregation, type AggregationRequest } from '../../aggregate/request.js';
import { perObjects, RawJson, route, type Schema } from '../route.js';

/** Documents scanned per credit. */
const SCANNED_PER_CREDIT = 500;

const name = (max: number): Schema => ({ type: 'string', minLength: 1, maxLength: max });

const BODY: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['resourceName', 'operations'],
  properties: {
    resourceName: name(100),
    operations: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['field', 'op'],
        properties: { field: name(200), op: { enum: AGGREGATION_OPS }, alias: name(200), expandArray: { type: 'boolean' } },
      },
    },
    query: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'value', 'operator'],
        properties: { key: name(200), value: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }, operator: { enum: QUERY_OPERATORS } },
      },
    },
    groupBy: { type: 'array', maxItems: 10, items: name(200) },
    sort: {
      type: 'object',
      additionalProperties: false,
      required: ['dir', 'field'],
      properties: { dir: { enum: ['asc', 'desc'] }, field: name(200) },
    },
  },
};

/** The answer, serialised around the worker's `data` bytes, with the credits it costs. */
class AggregationAnswer extends RawJson {
  constructor(
    json: Buffer,
    readonly credits: number,
  ) {
    super(json);
  }
}

/**
 * `POST /api/v1/aggregate`: runs in a worker thread (see `aggregate/`), one call at a time per
 * tenant. Costs one credit per 500 documents scanned (at least one), charged once the run is
 * done and reported as `creditsCost` at the top level of every answer, as the other
 * variable-cost answers do (also in the `X-Credits-Cost` header and, with `includeStats=true`,
 * in `stats`).
 */
export const aggregateRoutes = [
  route<{ parentTenantId?: string; includeStats?: boolean }, AggregationRequest, AggregationAnswer>({
    method: 'POST',
    path: '/api/v1/aggregate',
    access: 'tenant',
    query: { type: 'object', properties: { parentTenantId: name(200), includeStats: { type: 'boolean' } } },
    body: BODY,
    credits: (_req, result) => result.credits,
    handle: async (req) => {
      const { app, tenantId, query, body } = req;
      const plan = compileAggregation(body, { tenantId, parentTenantId: query.parentTenantId });
      const { data, scanned, timeMs } = await app.aggregator.run(tenantId, plan);
      const credits = perObjects(scanned, SCANNED_PER_CREDIT);
      req.setHeader('X-Credits-Cost', String(credits));
      const stats = query.includeStats ? `,"stats":${JSON.stringify({ timeMS: timeMs, scanned, creditsCost: credits })}` : '';
      const json = Buffer.concat([Buffer.from('{"status":"success","data":'), data, Buffer.from(`${stats},"creditsCost":${credits}}`)]);
      return new AggregationAnswer(json, credits);
    },
  }),
];
