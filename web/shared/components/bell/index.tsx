/** The reader's notification bell: unread count, the list, mark read, follow the page. */
import type { WidgetController } from '../../../widget/controller.js';

export function Bell({ c }: { c: WidgetController }) {
  const label = `${c.t('NOTIFICATIONS')} (${c.bell.count})`;
  return (
    <div>
      <button type="button" aria-expanded={c.bell.open} aria-controls="fc-bell" onClick={() => c.bell.toggle()}>
        <svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
          <path d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5-6.7V3a2 2 0 0 0-4 0v1.3A7 7 0 0 0 5 11v5l-2 2v1h18v-1z" />
        </svg>{' '}
        <span aria-hidden="true">{c.bell.count}</span>
        <span class="sr">{label}</span>
      </button>
      {c.bell.open && (
        <div id="fc-bell" role="region" aria-label={c.t('NOTIFICATIONS')} class="notice">
          {c.errors.get('bell') && (
            <p class="err" role="alert">
              {c.errors.get('bell')}
            </p>
          )}
          <button type="button" aria-pressed={c.bell.isSubscribed} onClick={() => c.bell.setSubscribed(!c.bell.isSubscribed)}>
            {c.t(c.bell.isSubscribed ? 'UNSUBSCRIBE_PAGE' : 'SUBSCRIBE_PAGE')}
          </button>
          {c.bell.items?.length === 0 && <p class="meta">{c.t('NO_NOTIFICATIONS')}</p>}
          <ul>
            {(c.bell.items ?? []).map((n) => (
              <li key={n['_id']}>
                <span class={n['viewed'] ? 'meta' : 'name'}>{c.bell.text(n)}</span>{' '}
                {!n['viewed'] && (
                  <button type="button" onClick={() => c.bell.markRead(n)}>
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
