/** The reader's notification bell: unread count, the list, mark read, follow the page. */
import type { WidgetController } from '../../widget/controller.js';

export function Bell({ c }: { c: WidgetController }) {
  const label = `${c.t('NOTIFICATIONS')} (${c.notificationCount})`;
  return (
    <div>
      <button type="button" aria-expanded={c.bellOpen} aria-controls="fc-bell" onClick={() => c.toggleBell()}>
        {'🔔'} <span aria-hidden="true">{c.notificationCount}</span>
        <span class="sr">{label}</span>
      </button>
      {c.bellOpen && (
        <div id="fc-bell" role="region" aria-label={c.t('NOTIFICATIONS')} class="notice">
          {c.errors.get('bell') && (
            <p class="err" role="alert">
              {c.errors.get('bell')}
            </p>
          )}
          <button type="button" aria-pressed={c.isSubscribed} onClick={() => c.setSubscribed(!c.isSubscribed)}>
            {c.t(c.isSubscribed ? 'UNSUBSCRIBE_PAGE' : 'SUBSCRIBE_PAGE')}
          </button>
          {c.notifications?.length === 0 && <p class="meta">{c.t('NO_NOTIFICATIONS')}</p>}
          <ul>
            {(c.notifications ?? []).map((n) => (
              <li key={n['_id']}>
                <span class={n['viewed'] ? 'meta' : 'name'}>{c.notificationText(n)}</span>{' '}
                {!n['viewed'] && (
                  <button type="button" onClick={() => c.markRead(n)}>
                    {c.t('MARK_READ')}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
