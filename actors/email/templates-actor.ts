import { Actor, type ActorContext, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import type { RenderPool } from '../../email/render-pool.js';
import type { CollectionSpec } from '../../storage/store.js';
import { TenantKind } from '../tenant/tenant-actor.js';
import { EMAIL_COLLECTIONS as C, type EmailTemplateDoc, type EmailTemplateInput, type EmailTemplatesProtocol, type RenderErrorDoc, type Translations } from './protocol.js';
import {
  checkTemplateDomain,
  localeOf,
  MAX_RENDER_ERRORS_PER_TEMPLATE,
  MAX_TEMPLATES_PER_TENANT,
  renderErrorId,
  renderInput,
  requireDefinition,
  slotOf,
  testDataOf,
  WILDCARD,
} from './template-model.js';

/** Templates (unique by slot per tenant) and their render errors. */
export const emailTemplateCollections: readonly CollectionSpec[] = [
  {
    name: C.templates,
    indexes: [
      { name: 'by_tenant_created', fields: ['tenantId', 'createdAt'] },
      { name: 'by_tenant_slot', fields: ['tenantId', 'slot'], unique: true },
    ],
  },
  { name: C.renderErrors, indexes: [{ name: 'by_tenant_template', fields: ['tenantId', 'customTemplateId'] }] },
];

/** What a new or changed template starts from: its identity, and for a change its current fields. */
interface TemplateBase {
  _id: string;
  tenantId: string;
  createdAt: string;
  updatedAt: string | null;
  updatedByUserId: string | null;
  translationOverridesByLocale: Translations;
  testData: Record<string, unknown>;
  emailTemplateId?: string;
  displayName?: string;
  domain?: string | null;
  ejs?: string;
}

const byCreation = (a: EmailTemplateDoc, b: EmailTemplateDoc) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/**
 * One tenant's email templates, all in memory (a tenant has at most a thousand). Every create
 * and update renders the template with its test data in the render pool before anything is
 * stored: a template that cannot render is never saved.
 */
export class EmailTemplatesActor extends Actor<EmailTemplatesProtocol> {
  readonly #renderer: RenderPool;
  readonly #templates = new Map<string, EmailTemplateDoc>();
  readonly #bySlot = new Map<string, EmailTemplateDoc>();
  /** Render errors by template id, then error id. */
  readonly #errors = new Map<string, Map<string, RenderErrorDoc>>();

  constructor(ctx: ActorContext, renderer: RenderPool) {
    super(ctx);
    this.#renderer = renderer;
  }

  override async onStart(): Promise<void> {
    for (const doc of await this.store.find<EmailTemplateDoc>(C.templates, { tenantId: this.id })) {
      this.#templates.set(doc._id, doc);
      this.#bySlot.set(doc.slot, doc);
    }
    for (const doc of await this.store.find<RenderErrorDoc>(C.renderErrors, { tenantId: this.id })) this.#errorsOf(doc.customTemplateId).set(doc._id, doc);
  }

  readonly handlers: Handlers<EmailTemplatesProtocol> = {
    list: ({ skip, limit }) => [...this.#templates.values()].sort(byCreation).slice(skip, skip + limit),
    get: ({ id }) => this.#get(id),
    create: async ({ input, byUserId }) => {
      if (this.#templates.size >= MAX_TEMPLATES_PER_TENANT) throw new ApiError('email-template-limit', `A tenant has at most ${MAX_TEMPLATES_PER_TENANT} email templates.`);
      const nowIso = new Date(clock.now()).toISOString();
      const doc = await this.#checked(
        { _id: newId(clock.now()), tenantId: this.id, createdAt: nowIso, updatedAt: null, updatedByUserId: byUserId, translationOverridesByLocale: {}, testData: {} },
        input,
      );
      this.insert(C.templates, doc);
      this.#remember(doc);
      return doc;
    },
    update: async ({ id, changes, byUserId }) => {
      const current = this.#get(id);
      const doc = await this.#checked({ ...current, updatedAt: new Date(clock.now()).toISOString(), updatedByUserId: byUserId }, changes);
      this.put(C.templates, doc);
      this.#bySlot.delete(current.slot);
      this.#remember(doc);
      return doc;
    },
    remove: ({ id }) => {
      const current = this.#get(id);
      this.remove(C.templates, id);
      this.#templates.delete(id);
      this.#bySlot.delete(current.slot);
      for (const errorId of this.#errors.get(id)?.keys() ?? []) this.remove(C.renderErrors, errorId);
      this.#errors.delete(id);
      return null;
    },
    select: ({ emailTemplateId, domain }) => {
      return (domain !== null ? this.#bySlot.get(slotOf(emailTemplateId, domain)) : undefined) ?? this.#bySlot.get(slotOf(emailTemplateId, WILDCARD)) ?? null;
    },
    recordRenderError: ({ id, error }) => {
      if (!this.#templates.has(id)) return null;
      const errors = this.#errorsOf(id);
      const nowIso = new Date(clock.now()).toISOString();
      const errorId = renderErrorId(id, error);
      const known = errors.get(errorId);
      const doc: RenderErrorDoc = known
        ? { ...known, count: known.count + 1, lastOccurredAt: nowIso }
        : { _id: errorId, tenantId: this.id, customTemplateId: id, error, count: 1, createdAt: nowIso, lastOccurredAt: nowIso };
      if (known === undefined && errors.size >= MAX_RENDER_ERRORS_PER_TEMPLATE) {
        const stalest = [...errors.values()].sort((a, b) => (a.lastOccurredAt < b.lastOccurredAt ? -1 : 1))[0]!;
        errors.delete(stalest._id);
        this.remove(C.renderErrors, stalest._id);
      }
      errors.set(errorId, doc);
      this.put(C.renderErrors, doc);
      return null;
    },
    listRenderErrors: ({ id, skip, limit }) => {
      this.#get(id);
      const all = [...(this.#errors.get(id)?.values() ?? [])].sort((a, b) => (a.lastOccurredAt > b.lastOccurredAt ? -1 : a.lastOccurredAt < b.lastOccurredAt ? 1 : 0));
      return all.slice(skip, skip + limit);
    },
    removeRenderError: ({ id, errorId }) => {
      this.#get(id);
      const errors = this.#errors.get(id);
      if (errors?.get(errorId) === undefined) throw new ApiError('not-found', `Template ${id} has no render error ${errorId}.`);
      errors.delete(errorId);
      this.remove(C.renderErrors, errorId);
      return null;
    },
  };

  #get(id: string): EmailTemplateDoc {
    const doc = this.#templates.get(id);
    if (doc === undefined) throw new ApiError('not-found', `No email template ${id}.`);
    return doc;
  }

  #remember(doc: EmailTemplateDoc): void {
    this.#templates.set(doc._id, doc);
    this.#bySlot.set(doc.slot, doc);
  }

  #errorsOf(id: string): Map<string, RenderErrorDoc> {
    let errors = this.#errors.get(id);
    if (errors === undefined) this.#errors.set(id, (errors = new Map()));
    return errors;
  }

  /** `base` with `input` applied, checked (id, domain, uniqueness) and rendered with its test data. */
  async #checked(base: TemplateBase, input: EmailTemplateInput): Promise<EmailTemplateDoc> {
    const emailTemplateId = input.emailTemplateId ?? base.emailTemplateId!;
    const definition = requireDefinition(emailTemplateId);
    let domain: string | null;
    if (input.domain === undefined) domain = base.domain ?? null;
    else if (input.domain === null || input.domain.trim() === WILDCARD) domain = checkTemplateDomain(input.domain, []);
    else domain = checkTemplateDomain(input.domain, await this.system.ask(TenantKind, this.id, 'listDomainConfigs', null));
    const slot = slotOf(emailTemplateId, domain);
    const holder = this.#bySlot.get(slot);
    if (holder !== undefined && holder._id !== base._id) {
      throw new ApiError('duplicate', `Template ${holder._id} already is the ${emailTemplateId} template for ${domain === null || domain === WILDCARD ? 'every domain (*)' : domain}.`);
    }
    const doc: EmailTemplateDoc = {
      ...base,
      emailTemplateId,
      displayName: input.displayName ?? base.displayName!,
      domain,
      ejs: input.ejs ?? base.ejs!,
      translationOverridesByLocale: input.translationOverridesByLocale ?? base.translationOverridesByLocale,
      testData: input.testData ?? base.testData,
      slot,
    };
    const data = testDataOf(definition, doc.testData);
    await this.#renderer.renderOrRefuse({ tenantId: this.id, ...renderInput(definition, doc, data, localeOf(data)) });
    return doc;
  }
}
