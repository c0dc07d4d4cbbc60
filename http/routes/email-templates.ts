import { EmailTemplatesKind, type EmailTemplateInput, type Translations } from '../../actors/email/protocol.js';
import { renderErrorView, renderInput, requireDefinition, TEMPLATE_PAGE_SIZE, templateView, testDataOf } from '../../actors/email/template-model.js';
import { DEFINITIONS } from '../../email/definitions.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import { nullableText, text } from './page-context.js';

const TRANSLATIONS: Schema = { type: 'object', maxProperties: 100, additionalProperties: { type: 'object', maxProperties: 500, additionalProperties: text(20_000) } };
const TEST_DATA: Schema = { type: 'object', maxProperties: 500, additionalProperties: true };
const EJS: Schema = text(200_000);

const FIELDS: Record<string, Schema> = {
  emailTemplateId: text(100, 1),
  displayName: text(500),
  ejs: EJS,
  domain: nullableText(253),
  translationOverridesByLocale: TRANSLATIONS,
  testData: TEST_DATA,
};

const ID_PARAM: Schema = { type: 'object', properties: { id: text(128, 1) }, required: ['id'] };
const ERROR_PARAMS: Schema = { type: 'object', properties: { id: text(128, 1), errorId: text(256, 1) }, required: ['id', 'errorId'] };
const PAGING: Schema = { type: 'object', properties: { page: { type: 'integer', minimum: 0, maximum: 1_000_000 }, skip: { type: 'integer', minimum: 0, maximum: 100_000_000 } } };

interface Paging {
  page?: number;
  skip?: number;
}

interface RenderBody {
  emailTemplateId: string;
  ejs: string;
  testData?: Record<string, unknown>;
  translationOverridesByLocale?: Translations;
}

/** `skip` (the API description) or `page` (the documentation), 100 per page. */
function offset(query: Paging): number {
  return query.skip ?? (query.page ?? 0) * TEMPLATE_PAGE_SIZE;
}

/** Who changed a template: the user of an access token; an API key names nobody. */
function byUserId(req: RouteRequest<unknown, unknown>): string | null {
  return req.auth?.userId ?? null;
}

/** Email templates of the tenant, their preview, the built-in definitions and the render errors. Rules in docs/email.md. */
export const emailTemplateRoutes = [
  route({
    method: 'GET',
    path: '/api/v1/email-templates/definitions',
    access: 'tenant',
    handle: () => ({ definitions: DEFINITIONS }),
  }),
  route<Paging, undefined>({
    method: 'GET',
    path: '/api/v1/email-templates',
    access: 'tenant',
    query: PAGING,
    handle: async ({ app, tenantId, query }) => {
      const docs = await app.system.ask(EmailTemplatesKind, tenantId, 'list', { skip: offset(query), limit: TEMPLATE_PAGE_SIZE });
      return { emailTemplates: docs.map(templateView) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/email-templates/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const doc = await app.system.ask(EmailTemplatesKind, tenantId, 'get', { id: params['id']! });
      return { emailTemplate: templateView(doc) };
    },
  }),
  route<Record<string, unknown>, EmailTemplateInput & { emailTemplateId: string; displayName: string; ejs: string }>({
    method: 'POST',
    path: '/api/v1/email-templates',
    access: 'tenant',
    body: { type: 'object', properties: FIELDS, required: ['emailTemplateId', 'displayName', 'ejs'] },
    handle: async (req) => {
      const doc = await req.app.system.ask(EmailTemplatesKind, req.tenantId, 'create', { input: req.body, byUserId: byUserId(req) });
      return { emailTemplate: templateView(doc) };
    },
  }),
  route<Record<string, unknown>, EmailTemplateInput>({
    method: 'PATCH',
    path: '/api/v1/email-templates/:id',
    access: 'tenant',
    params: ID_PARAM,
    body: { type: 'object', properties: FIELDS, minProperties: 1 },
    handle: async (req) => {
      const doc = await req.app.system.ask(EmailTemplatesKind, req.tenantId, 'update', { id: req.params['id']!, changes: req.body, byUserId: byUserId(req) });
      return { emailTemplate: templateView(doc) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/email-templates/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(EmailTemplatesKind, tenantId, 'remove', { id: params['id']! });
      return {};
    },
  }),
  route<{ locale?: string }, RenderBody>({
    method: 'POST',
    path: '/api/v1/email-templates/render',
    access: 'tenant',
    query: { type: 'object', properties: { locale: text(20) } },
    // The documentation's example also sends `displayName`; it does not change the preview.
    body: { type: 'object', properties: { emailTemplateId: FIELDS['emailTemplateId']!, ejs: EJS, testData: TEST_DATA, translationOverridesByLocale: TRANSLATIONS, displayName: text(500) }, required: ['emailTemplateId', 'ejs'] },
    handle: async ({ app, tenantId, query, body }) => {
      const definition = requireDefinition(body.emailTemplateId);
      const data = testDataOf(definition, body.testData);
      const locale = query.locale ?? (typeof data['locale'] === 'string' ? data['locale'] : null);
      const rendered = await app.email.renderer.renderOrRefuse({ tenantId, ...renderInput(definition, { ejs: body.ejs, translationOverridesByLocale: body.translationOverridesByLocale ?? {} }, data, locale) });
      return { html: rendered.html };
    },
  }),
  route<{ skip?: number }, undefined>({
    method: 'GET',
    path: '/api/v1/email-templates/:id/render-errors',
    access: 'tenant',
    params: ID_PARAM,
    query: { type: 'object', properties: { skip: { type: 'integer', minimum: 0, maximum: 100_000 } } },
    handle: async ({ app, tenantId, params, query }) => {
      const docs = await app.system.ask(EmailTemplatesKind, tenantId, 'listRenderErrors', { id: params['id']!, skip: query.skip ?? 0, limit: TEMPLATE_PAGE_SIZE });
      return { renderErrors: docs.map(renderErrorView) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/email-templates/:id/render-errors/:errorId',
    access: 'tenant',
    params: ERROR_PARAMS,
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(EmailTemplatesKind, tenantId, 'removeRenderError', { id: params['id']!, errorId: params['errorId']! });
      return {};
    },
  }),
];
