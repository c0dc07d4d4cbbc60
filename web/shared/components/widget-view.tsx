/** The whole widget: a labelled region with the sort, the form, new-comment notices and the thread. */
import type { SortDirection } from '../types.js';
import type { WidgetController } from '../../widget/controller.js';
import { CommentForm } from './comment-form/index.js';
import { Bell } from './bell/index.js';
import { OnlineList } from './online-list/index.js';
import { Thread } from './thread/index.js';
import { PageReactions } from './page-reactions/index.js';

const SORTS: ReadonlyArray<readonly [SortDirection, string]> = [
  ['MR', 'SORT_MOST_RELEVANT'],
  ['NF', 'SORT_NEWEST_FIRST'],
  ['OF', 'SORT_OLDEST_FIRST'],
];

export function WidgetView({ c, dark, now }: { c: WidgetController; dark: boolean; now: number }) {
  const dir = c.strings['LOCALE_DIRECTION'] === 'rtl' ? 'rtl' : 'ltr';
  const lang = c.locale.split('_')[0];
  const canPost = !c.config.readonly && !c.isClosed && !c.config.noNewRootComments;
  const sso = c.config.sso as { loginURL?: string; logoutURL?: string } | undefined;
  return (
    <section class={`fc${dark ? ' dark' : ''}`} dir={dir} lang={lang} aria-labelledby="fc-title">
      <div class="bar">
        <h2 id="fc-title">
          {c.t('COMMENTS_TITLE')} <span class="meta">({c.commentCount})</span>
        </h2>
        {c.ssr ? (
          <form method="get" class="row">
            {Object.entries(c.ssr.hidden)
              .filter(([name]) => name !== 'direction')
              .map(([name, value]) => (
                <input type="hidden" name={name} value={value} />
              ))}
            <label>
              {c.t('SORT_BY')}
              <select name="direction" value={c.direction}>
                {SORTS.map(([value, key]) => (
                  <option value={value} selected={value === c.direction}>
                    {c.t(key)}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit">{c.t('SORT_BY')}</button>
          </form>
        ) : (
          <label>
            {c.t('SORT_BY')}
            <select value={c.direction} onChange={(e) => c.setDirection((e.target as HTMLSelectElement).value as SortDirection)}>
              {SORTS.map(([value, key]) => (
                <option value={value}>{c.t(key)}</option>
              ))}
            </select>
          </label>
        )}
        {c.online > 0 && <span class="meta">{c.t('VIEWING_NOW', { count: c.online })}</span>}
        {c.user && !c.ssr && <Bell c={c} />}
        {sso?.loginURL && !c.user && <a href={sso.loginURL}>{c.t('LOG_IN')}</a>}
        {sso?.logoutURL && c.user && <a href={sso.logoutURL}>{c.t('LOG_OUT')}</a>}
      </div>
      {!c.ssr && <OnlineList c={c} />}
      <div class="sr" aria-live="polite" role="status">
        {c.announcement}
      </div>
      {c.blocking ? (
        <p class="notice" role="alert">
          {c.blocking}
        </p>
      ) : (
        <>
          <PageReactions c={c} />
          {canPost ? (
            <CommentForm
              formId="fc-new"
              label={c.t('WRITE_A_COMMENT')}
              submitLabel={c.t('SUBMIT_COMMENT')}
              askName={c.needsName()}
              nameLabel={c.t('YOUR_NAME')}
              emailLabel={c.t('YOUR_EMAIL')}
              maxLength={c.maxLength}
              formatting={c.formatting()}
              error={c.errors.get('new') ?? (c.ssr?.error?.where === 'new' ? c.ssr.error.text : undefined)}
              action={c.ssr?.postAction}
              hidden={c.ssr?.hidden}
              tooLongText={c.t('COMMENT_TOO_LONG', { max: c.maxLength })}
              onSubmit={({ text, name, email }) => c.actions.post({ text, name: name || undefined, email: email || undefined, parentId: null }, 'new')}
            />
          ) : (
            c.isClosed && <p class="notice">{c.t('THREAD_CLOSED')}</p>
          )}
          <Thread c={c} now={now} />
        </>
      )}
    </section>
  );
}
