/** The names of the readers online on the page, under the "N viewing" count. */
import type { WidgetController } from '../../../widget/controller.js';

export function OnlineList({ c }: { c: WidgetController }) {
  const { users, anonCount } = c.onlineUsers;
  if (users.length === 0 && anonCount === 0) return null;
  return (
    <ul class="online meta" aria-label={c.t('ONLINE_NOW')}>
      {users.map((u) => (
        <li key={u.id}>{u.isPrivate ? c.t('PRIVATE_USER') : u.displayName}</li>
      ))}
      {anonCount > 0 && <li>{c.t('ANONYMOUS_READERS', { count: anonCount })}</li>}
    </ul>
  );
}
