/**
 * The moderation page: the queues, the list of comments to decide on with one-key actions and
 * bulk actions, the focused comment's context, export, and new comments arriving live.
 * Keyboard first: j/k (or the arrows) move the focus between comments, a letter acts on the
 * focused one (model/actions.ts), x selects it, b bans its author, c goes to its tools in the
 * context panel (edit, badges, trust factor), / goes to the search box.
 * Other moderators' actions arrive live too (`moderation-updated`): the comment is read again,
 * changed in place or dropped from the queue, and the counts are read again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { Api } from '../../shared/api.js';
import { BanDialog } from '../ban-dialog/ban-dialog.js';
import { BulkBanDialog } from '../bulk-ban-dialog/bulk-ban-dialog.js';
import { BulkBar } from '../bulk-bar/bulk-bar.js';
import { CommentCard } from '../comment-card/comment-card.js';
import { ContextPanel } from '../context-panel/context-panel.js';
import { ExportPanel } from '../export-panel/export-panel.js';
import { LiveFeed } from '../live-feed/live-feed.js';
import { actionOfKey, authorOf } from '../model/actions.js';
import { belongs, queueOf, QUEUES, type QueueId } from '../model/queues.js';
import { t } from '../model/strings.js';
import type { BanChangelog, ModComment, PageConfig } from '../model/types.js';
import { QueueTabs } from '../queue-tabs/queue-tabs.js';
import { handleKey } from './keys.js';

const PAGE_SIZE = 30;
/** How long after an action of this page a live update is taken for its echo (not announced). */
const OWN_ECHO_MS = 3000;

export function App({ config }: { config: PageConfig }) {
  const { strings, base } = config;
  const locale = document.documentElement.lang || 'en';
  const api = useRef(new Api('')).current;
  const [queue, setQueue] = useState<QueueId>('unreviewed');
  const [search, setSearch] = useState('');
  const [draft, setDraft] = useState('');
  const [comments, setComments] = useState<ModComment[]>([]);
  const [page, setPage] = useState(0);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [counts, setCounts] = useState<Partial<Record<QueueId, number>>>({});
  const [focusId, setFocusId] = useState<string | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const [message, setMessage] = useState('');
  const [banFor, setBanFor] = useState<ModComment | null>(null);
  // The change logs of the last ban (one) or bulk ban (several): "Undo" takes each back.
  const [lastBan, setLastBan] = useState<BanChangelog[] | null>(null);
  const [bulkBan, setBulkBan] = useState<ModComment[] | null>(null);
  const [live, setLive] = useState(false);
  const [version, setVersion] = useState(0);
  const moveFocus = useRef(false);
  // Until when updates heard live are this page's own actions echoed back: applied, not announced.
  const quietUntil = useRef(0);
  const ownAction = () => {
    quietUntil.current = Date.now() + OWN_ECHO_MS;
  };
  // Reads of the queue and its counts are numbered: an answer to an older read (another queue or search) is dropped.
  const loadSeq = useRef(0);
  const countSeq = useRef(0);
  // Comments the live feed added, with the read under way when each came: a read that started before keeps them.
  const arrived = useRef(new Map<string, { comment: ModComment; seq: number }>());
  // The latest state, for handlers registered once (keys, the live feed).
  const now = useRef({ queue, search, comments, focusId, selected, banFor, bulkBan });
  now.current = { queue, search, comments, focusId, selected, banFor, bulkBan };

  const announce = (text: string) => setMessage((m) => (m === text ? `${text}\u00a0` : text));
  const fail = (reason: string) => announce(t(strings, 'FAILED', { reason }));
  const findQuery = (q: QueueId, s: string) => ({ filters: JSON.stringify(queueOf(q).filter), 'text-search': s || undefined });

  const refreshCounts = (s = now.current.search) => {
    const seq = ++countSeq.current;
    for (const q of QUEUES) {
      void api.call<{ count: number }>('GET', `${base}/count`, { filter: JSON.stringify(q.filter), 'text-search': s || undefined }).then(
        (a) => seq === countSeq.current && setCounts((c) => ({ ...c, [q.id]: a.count })),
        () => undefined,
      );
    }
  };

  const load = async (q: QueueId, s: string, p: number) => {
    const seq = ++loadSeq.current;
    setLoading(true);
    try {
      const answer = await api.call<{ comments: ModComment[] }>('GET', `${base}/api/comments`, { ...findQuery(q, s), page: p, count: PAGE_SIZE });
      if (seq !== loadSeq.current) return;
      const shown = answer.comments.filter((c) => belongs(q, c));
      const missed = [...arrived.current.values()].filter((a) => a.seq >= seq && !shown.some((c) => c._id === a.comment._id)).map((a) => a.comment);
      arrived.current.clear();
      setComments((before) => {
        if (p === 0) return [...missed, ...shown];
        const have = new Set(before.map((c) => c._id));
        return [...before, ...shown.filter((c) => !have.has(c._id))];
      });
      setHasMore(answer.comments.length === PAGE_SIZE);
      setPage(p);
      if (p === 0) setSelected(new Set());
    } catch (err) {
      if (seq === loadSeq.current) fail((err as Error).message);
    } finally {
      if (seq === loadSeq.current) setLoading(false);
    }
  };

  useEffect(() => {
    void load(queue, search, 0);
    refreshCounts(search);
  }, [queue, search]);

  // The focus follows `focusId` when a key or an action moved it (not when the list re-renders).
  useEffect(() => {
    if (!moveFocus.current || focusId === null) return;
    moveFocus.current = false;
    const el = document.getElementById(`c-${focusId}`);
    el?.focus();
    el?.scrollIntoView({ block: 'nearest' });
  }, [focusId, comments]);

  const focusAt = (index: number) => {
    const list = now.current.comments;
    if (list.length === 0) return;
    moveFocus.current = true;
    setFocusId(list[Math.max(0, Math.min(list.length - 1, index))]!._id);
  };

  /** Drops a comment from the list; if it had the focus, the next one takes it (and the keyboard focus too with `keepFocus`). */
  const drop = (id: string, keepFocus = document.activeElement?.closest('#queue-panel') != null) => {
    const list = now.current.comments;
    const at = list.findIndex((c) => c._id === id);
    if (at < 0) return;
    const rest = list.filter((c) => c._id !== id);
    setComments(rest);
    setSelected((s) => {
      const next = new Set(s);
      next.delete(id);
      return next;
    });
    if (now.current.focusId === id) {
      const next = rest[Math.min(at, rest.length - 1)];
      moveFocus.current = keepFocus;
      setFocusId(next?._id ?? null);
    }
  };

  /** Applies a change to a comment; one that no longer belongs to the queue leaves it (the focus moving on). */
  const applyChange = (id: string, patch: Partial<ModComment>, keepFocus: boolean) => {
    const list = now.current.comments;
    const at = list.findIndex((c) => c._id === id);
    if (at < 0) return;
    const updated = { ...list[at]!, ...patch };
    if (belongs(now.current.queue, updated)) setComments(list.map((c) => (c._id === id ? updated : c)));
    else drop(id, keepFocus);
  };

  const act = async (key: string, c: ModComment, quiet = false): Promise<boolean> => {
    const action = actionOfKey(key);
    if (action === undefined || !action.applies(c)) return false;
    setBusy((b) => new Set(b).add(c._id));
    try {
      ownAction();
      const patch = await action.run(api, base, c);
      ownAction();
      const hadFocus = document.activeElement?.closest('#queue-panel') !== null;
      applyChange(c._id, patch, hadFocus);
      if (!quiet) announce(t(strings, action.done, { name: authorOf(c, t(strings, 'ANONYMOUS')) }));
      setVersion((v) => v + 1);
      return true;
    } catch (err) {
      fail((err as Error).message);
      return false;
    } finally {
      setBusy((b) => {
        const next = new Set(b);
        next.delete(c._id);
        return next;
      });
    }
  };

  const bulk = async (key: string) => {
    const chosen = now.current.comments.filter((c) => now.current.selected.has(c._id));
    let done = 0;
    for (const c of chosen) if (await act(key, c, true)) done++;
    announce(t(strings, 'BULK_DONE', { count: done }));
    refreshCounts();
  };

  const banned = (changelog: BanChangelog, c: ModComment) => {
    ownAction();
    setBanFor(null);
    setLastBan([changelog]);
    announce(t(strings, 'DONE_BANNED', { name: authorOf(c, t(strings, 'ANONYMOUS')) }));
    // The ban marked (or removed) the author's other comments too: the queue is read again.
    moveFocus.current = true;
    void load(now.current.queue, now.current.search, 0);
    refreshCounts();
    setVersion((v) => v + 1);
  };

  const bulkBanned = (changelogs: BanChangelog[], failed: number) => {
    ownAction();
    setBulkBan(null);
    if (changelogs.length > 0) setLastBan(changelogs);
    announce(failed === 0 ? t(strings, 'DONE_BULK_BANNED', { count: changelogs.length }) : t(strings, 'BULK_BAN_PARTLY', { count: changelogs.length, failed }));
    moveFocus.current = true;
    void load(now.current.queue, now.current.search, 0);
    refreshCounts();
    setVersion((v) => v + 1);
  };

  const undoBan = async () => {
    if (lastBan === null) return;
    // Undone last first, so a comment two bans changed ends as it was before the first.
    const left = [...lastBan];
    try {
      while (left.length > 0) {
        // Each undo is heard back live while the next is under way: this page's own, not announced.
        ownAction();
        await api.call('POST', `${base}/ban-user/undo`, {}, { changelog: left[left.length - 1] });
        left.pop();
      }
      ownAction();
      setLastBan(null);
      announce(t(strings, 'DONE_BAN_UNDONE'));
    } catch (err) {
      setLastBan(left.length > 0 ? left : null);
      fail((err as Error).message);
    }
    void load(now.current.queue, now.current.search, 0);
    refreshCounts();
  };

  /** A comment a moderator changed (perhaps this page's own action, heard back): read it again. */
  const onUpdated = async (id: string) => {
    // Decided as the frame arrives, not after the read below (which a loaded server may slow).
    const quiet = Date.now() < quietUntil.current;
    refreshCounts();
    const shown = now.current.comments.find((c) => c._id === id);
    if (shown === undefined) return;
    let comment: ModComment;
    try {
      ({ comment } = await api.call<{ comment: ModComment }>('GET', `${base}/comment/${id}`));
    } catch {
      // No longer one this moderator may see.
      drop(id);
      return;
    }
    const current = now.current.comments.find((c) => c._id === id);
    if (current === undefined) return;
    const name = authorOf(comment, t(strings, 'ANONYMOUS'));
    if (!belongs(now.current.queue, comment)) {
      drop(id);
      if (!quiet) announce(t(strings, 'UPDATED_GONE', { name }));
    } else if (changedSeen(current, comment)) {
      setComments(now.current.comments.map((c) => (c._id === id ? comment : c)));
      if (!quiet) announce(t(strings, 'UPDATED_HERE', { name }));
    }
    if (now.current.focusId === id) setVersion((v) => v + 1);
  };

  const edited = (patch: Partial<ModComment>) => {
    const id = now.current.focusId;
    if (id === null) return;
    ownAction();
    setComments(now.current.comments.map((c) => (c._id === id ? { ...c, ...patch } : c)));
    setVersion((v) => v + 1);
  };

  const onQueued = async (id: string) => {
    refreshCounts();
    if (now.current.search !== '' || now.current.comments.some((c) => c._id === id)) return;
    try {
      const { comment } = await api.call<{ comment: ModComment }>('GET', `${base}/comment/${id}`);
      if (!belongs(now.current.queue, comment) || now.current.comments.some((c) => c._id === id)) return;
      arrived.current.set(id, { comment, seq: loadSeq.current });
      setComments((list) => (list.some((c) => c._id === id) ? list : [comment, ...list]));
      announce(t(strings, 'NEW_COMMENT', { name: authorOf(comment, t(strings, 'ANONYMOUS')) }));
    } catch {
      // Not one this moderator may see (another group), or gone already.
    }
  };

  useEffect(() => {
    const feed = new LiveFeed(config.live, {
      onQueued: (id) => void onQueued(id),
      onUpdated: (id) => void onUpdated(id),
      onState: (connected, again) => {
        setLive(connected);
        // Back after a drop: whatever arrived meanwhile is read with the queue.
        if (again) {
          void load(now.current.queue, now.current.search, 0);
          refreshCounts();
        }
      },
    });
    return () => feed.close();
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) =>
      handleKey(e, {
        dialogOpen: now.current.banFor !== null || now.current.bulkBan !== null,
        comments: now.current.comments,
        focusId: now.current.focusId,
        focusAt,
        search: () => document.getElementById('search')?.focus(),
        toggle: (id) => setSelected((s) => toggled(s, id)),
        ban: (c) => setBanFor(c),
        tools: () => document.getElementById('edit-start')?.focus(),
        act: (key, c) => void act(key, c),
      });
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const focused = comments.find((c) => c._id === focusId) ?? null;
  const tabName = t(strings, queueOf(queue).label);
  return (
    <div class="page">
      <header class="top">
        <h1>{t(strings, 'PAGE_TITLE')}</h1>
        <p class="muted">{t(strings, 'SIGNED_IN_AS', { name: config.username })}</p>
        <p class={live ? 'live on' : 'live'}>{live ? t(strings, 'LIVE_ON') : t(strings, 'LIVE_OFF')}</p>
      </header>
      <main class="main">
        <QueueTabs strings={strings} current={queue} counts={counts} onChoose={(q) => setQueue(q)} />
        <form
          role="search"
          class="search"
          onSubmit={(e) => {
            e.preventDefault();
            setSearch(draft.trim());
          }}
        >
          <label for="search">{t(strings, 'SEARCH_LABEL')}</label>
          <input id="search" type="search" value={draft} onInput={(e) => setDraft((e.currentTarget as HTMLInputElement).value)} />
          <button type="submit">{t(strings, 'SEARCH')}</button>
          {search !== '' && (
            <button
              type="button"
              onClick={() => {
                setDraft('');
                setSearch('');
              }}
            >
              {t(strings, 'CLEAR_SEARCH')}
            </button>
          )}
        </form>
        <div id="queue-panel" role="tabpanel" aria-labelledby={`tab-${queue}`} aria-busy={loading}>
          <BulkBar
            strings={strings}
            shown={comments.length}
            selected={selected.size}
            busy={busy.size > 0}
            onSelectAll={(all) => setSelected(all ? new Set(comments.map((c) => c._id)) : new Set())}
            onRun={(key) => void bulk(key)}
            onBanAuthors={() => setBulkBan(comments.filter((c) => selected.has(c._id)))}
          />
          {lastBan !== null && (
            <p>
              <button type="button" onClick={() => void undoBan()}>
                {lastBan.length > 1 ? t(strings, 'UNDO_BANS', { count: lastBan.length }) : t(strings, 'UNDO_BAN')}
              </button>
            </p>
          )}
          <h2 class="visually-hidden">{tabName}</h2>
          {!loading && comments.length === 0 ? (
            <p>{t(strings, 'EMPTY_QUEUE')}</p>
          ) : (
            <ul class="cards" aria-label={t(strings, 'COMMENTS_LIST')}>
              {comments.map((c, i) => (
                <CommentCard
                  strings={strings}
                  locale={locale}
                  comment={c}
                  focused={focusId === null ? i === 0 : c._id === focusId}
                  selected={selected.has(c._id)}
                  busy={busy.has(c._id)}
                  onFocus={() => setFocusId(c._id)}
                  onSelect={() => setSelected((s) => toggled(s, c._id))}
                  onAction={(key) => void act(key, c)}
                  onBan={() => setBanFor(c)}
                />
              ))}
            </ul>
          )}
          {loading && <p class="muted">{t(strings, 'LOADING')}</p>}
          {hasMore && !loading && (
            <button type="button" onClick={() => void load(queue, search, page + 1)}>
              {t(strings, 'LOAD_MORE')}
            </button>
          )}
        </div>
        <ExportPanel strings={strings} api={api} base={base} query={findQuery(queue, search) as { filters: string; 'text-search'?: string }} />
        <section aria-labelledby="keys-title" class="keys">
          <h2 id="keys-title">{t(strings, 'KEYS')}</h2>
          <ul>
            <li>{t(strings, 'KEY_MOVE')}</li>
            <li>{t(strings, 'KEY_ACT')}</li>
            <li>{t(strings, 'KEY_SELECT')}</li>
            <li>{t(strings, 'KEY_TOOLS')}</li>
          </ul>
        </section>
      </main>
      <ContextPanel strings={strings} locale={locale} api={api} base={base} comment={focused} version={version} onEdited={edited} announce={announce} onActing={ownAction} />
      <div role="status" aria-live="polite" class="visually-hidden" id="announcer">
        {message}
      </div>
      {banFor !== null && (
        <BanDialog
          strings={strings}
          api={api}
          base={base}
          comment={banFor}
          onActing={ownAction}
          onBanned={(changelog) => banned(changelog, banFor)}
          onClose={() => {
            const id = banFor._id;
            setBanFor(null);
            document.getElementById(`c-${id}`)?.focus();
          }}
          onError={fail}
        />
      )}
      {bulkBan !== null && (
        <BulkBanDialog
          strings={strings}
          api={api}
          base={base}
          comments={bulkBan}
          onActing={ownAction}
          onBanned={bulkBanned}
          onClose={() => setBulkBan(null)}
          onError={fail}
        />
      )}
    </div>
  );
}

/** Whether a comment as read again differs, in what the page shows, from the one shown. */
function changedSeen(shown: ModComment, read: ModComment): boolean {
  const fields = ['approved', 'reviewed', 'isSpam', 'isDeleted', 'isBannedUser', 'isLocked', 'flagCount', 'commentHTML'] as const;
  return fields.some((f) => (shown[f] ?? false) !== (read[f] ?? false));
}

function toggled(set: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(set);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}
