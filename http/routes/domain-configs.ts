import { domainConfigView, type DomainConfigInput } from '../../actors/tenant/domain-configs.js';
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { route, type Schema } from '../route.js';
import { imageSrc, link } from './page-context.js';

const text = (maxLength: number): Schema => ({ type: 'string', maxLength });

const FIELDS: Record<string, Schema> = {
  domain: text(253),
  emailFromName: text(200),
  emailFromEmail: text(300),
  logoSrc: imageSrc(2048),
  logoSrc100px: imageSrc(2048),
  footerUnsubscribeURL: link(2048),
  emailHeaders: { type: 'object', additionalProperties: text(1000), maxProperties: 50 },
};

const withDomain: Schema = { type: 'object', properties: FIELDS, required: ['domain'] };
const partial: Schema = { type: 'object', properties: FIELDS, minProperties: 1 };
const byDomain = (name: string): Schema => ({ type: 'object', properties: { [name]: text(253) }, required: [name] });

/** Domain configurations: the sites allowed to host the widget, with their email settings. */
export const domainConfigRoutes = [
  route({
    method: 'GET',
    path: '/api/v1/domain-configs',
    access: 'tenant',
    handle: async ({ app, tenantId }) => {
      const docs = await app.system.ask(TenantKind, tenantId, 'listDomainConfigs', null);
      return { configurations: docs.map(domainConfigView) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/domain-configs/:domain',
    access: 'tenant',
    params: byDomain('domain'),
    handle: async ({ app, tenantId, params }) => {
      const doc = await app.system.ask(TenantKind, tenantId, 'getDomainConfig', { domain: params['domain']! });
      return { configuration: domainConfigView(doc) };
    },
  }),
  route<Record<string, unknown>, DomainConfigInput & { domain: string }>({
    method: 'POST',
    path: '/api/v1/domain-configs',
    access: 'tenant',
    body: withDomain,
    handle: async ({ app, tenantId, body }) => {
      const doc = await app.system.ask(TenantKind, tenantId, 'addDomainConfig', body);
      return { configuration: domainConfigView(doc) };
    },
  }),
  route<Record<string, unknown>, DomainConfigInput & { domain: string }>({
    method: 'PUT',
    path: '/api/v1/domain-configs/:domainToUpdate',
    access: 'tenant',
    params: byDomain('domainToUpdate'),
    body: withDomain,
    handle: async ({ app, tenantId, params, body }) => {
      const doc = await app.system.ask(TenantKind, tenantId, 'replaceDomainConfig', { domain: params['domainToUpdate']!, input: body });
      return { configuration: domainConfigView(doc) };
    },
  }),
  route<Record<string, unknown>, DomainConfigInput>({
    method: 'PATCH',
    path: '/api/v1/domain-configs/:domainToUpdate',
    access: 'tenant',
    params: byDomain('domainToUpdate'),
    body: partial,
    handle: async ({ app, tenantId, params, body }) => {
      const doc = await app.system.ask(TenantKind, tenantId, 'patchDomainConfig', { domain: params['domainToUpdate']!, input: body });
      return { configuration: domainConfigView(doc) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/domain-configs/:domain',
    access: 'tenant',
    params: byDomain('domain'),
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(TenantKind, tenantId, 'deleteDomainConfig', { domain: params['domain']! });
      return {};
    },
  }),
];
