/**
 * A moderator's actions on one comment, behind a "Moderate" button (a disclosure: Tab reaches
 * every action, Escape closes it and gives the focus back). Shown only to the tenant's
 * administrators and moderators; each result applies in place.
 */
import { useRef, useState } from 'preact/hooks';
import type { WidgetComment } from '../../types.js';
import type { WidgetController } from '../../../widget/controller.js';

export function ModeratorMenu({ c, comment, name }: { c: WidgetController; comment: WidgetComment; name: string }) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement | null>(null);
  const m = c.moderation;
  const id = `fc-mod-${comment._id}`;
  const held = comment.approved === false;
  return (
    <>
      <button type="button" ref={toggle} aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {c.t('MODERATE')}
      </button>
      {open && (
        <div
          id={id}
          class="mod-menu"
          role="group"
          aria-label={c.t('MODERATION_OF', { name })}
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return;
            setOpen(false);
            toggle.current?.focus();
          }}
        >
          <button type="button" onClick={() => m.approve(comment, held)}>
            {c.t(held ? 'APPROVE' : 'UNAPPROVE')}
          </button>
          <button type="button" onClick={() => m.spam(comment, !comment.isSpam)}>
            {c.t(comment.isSpam ? 'NOT_SPAM' : 'MARK_SPAM')}
          </button>
          {!comment.parentId && (
            <button type="button" onClick={() => m.publicAction(comment, comment.isPinned ? 'unpin' : 'pin')}>
              {c.t(comment.isPinned ? 'UNPIN' : 'PIN')}
            </button>
          )}
          <button type="button" onClick={() => m.publicAction(comment, comment.isLocked ? 'unlock' : 'lock')}>
            {c.t(comment.isLocked ? 'UNLOCK' : 'LOCK')}
          </button>
          <button type="button" onClick={() => m.remove(comment)}>
            {c.t('REMOVE')}
          </button>
          {!comment.isBannedUser && (
            <button type="button" onClick={() => m.ban(comment)}>
              {c.t('BAN_USER')}
            </button>
          )}
        </div>
      )}
    </>
  );
}
