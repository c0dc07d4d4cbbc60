import { componentStrings, COMPONENTS, WIDGET_NAMESPACE } from '../../translations/index.js';
import { ApiError } from '../../engine/errors.js';
import { route, type Schema } from '../route.js';
import { text } from './page-context.js';

interface TranslationsQuery {
  locale?: string;
  useFullTranslationIds?: boolean;
}

const PARAMS: Schema = {
  type: 'object',
  properties: { namespace: text(64, 1), component: text(128, 1) },
  required: ['namespace', 'component'],
};

/**
 * `GET /translations/{namespace}/{component}?locale&useFullTranslationIds`: the server's own
 * strings of one widget component (`translations/`), in the locale's language with English
 * for what it lacks. Keys are already unique across components, so `useFullTranslationIds`
 * changes nothing. Public, the same for every tenant; an unknown namespace or component is
 * 404 `not-found`.
 */
export const translationRoutes = [
  route<TranslationsQuery, undefined>({
    method: 'GET',
    path: '/translations/:namespace/:component',
    access: 'public',
    params: PARAMS,
    query: { type: 'object', properties: { locale: text(32), useFullTranslationIds: { type: 'boolean' } } },
    handle: ({ params, query }) => {
      const { namespace, component } = params as { namespace: string; component: string };
      const strings = namespace === WIDGET_NAMESPACE ? componentStrings(component, query.locale) : undefined;
      if (strings === undefined) {
        throw new ApiError('not-found', `No strings for ${namespace}/${component}: the namespace is ${WIDGET_NAMESPACE}, the components ${COMPONENTS.join(', ')}.`);
      }
      return { translations: strings };
    },
  }),
];
