/**
 * What the widget's parts (comment actions, moderation, live events, reactions, polls) use of
 * the controller that owns them. They depend on this, never on the controller, so no import
 * runs back up to it; the controller implements it.
 */
import type { Api, Query } from '../shared/api.js';
import type { Strings } from '../shared/strings.js';
import type { SortDirection, WidgetComment, WidgetConfig, WidgetUser } from '../shared/types.js';
import type { NotificationBell } from './notifications.js';
import type { OnlineUsers } from './online-users.js';
import type { SsrLinks } from './ssr-links.js';
import type { ThreadState } from './thread-state.js';

/** A part that takes the live events of its kind. */
export interface LiveListener {
  onLive(event: Record<string, any>): void;
}

/** The controller as its parts see it (web/widget/controller.ts). */
export interface WidgetHost {
  readonly api: Api;
  config: WidgetConfig;
  strings: Strings;
  locale: string;
  user: WidgetUser | null;
  ssr: SsrLinks | undefined;
  readonly thread: ThreadState;
  direction: SortDirection;
  commentCount: number;
  isClosed: boolean;
  errors: Map<string, string>;
  announcement: string;
  maxLength: number;
  online: number;
  readonly comments: Map<string, WidgetComment>;
  readonly tenantId: string;
  readonly urlId: string;
  readonly sso: string | undefined;
  readonly bell: NotificationBell;
  readonly onlineUsers: OnlineUsers;
  readonly polls: LiveListener;
  readonly reactions: LiveListener;
  /** Re-renders the view. */
  readonly changed: () => void;
  identity(): Query;
  t(key: string, values?: Record<string, string | number>): string;
  applyServerConfig(custom: Record<string, any>): void;
  setUser(user: WidgetUser | null): void;
  errorText(err: unknown): string;
  fail(where: string, err: unknown): void;
  broadcast(): string;
  patch(id: string, fields: Partial<WidgetComment>): void;
  drop(id: string): void;
  retargetLive(userIdWS: string): void;
  waitingUnder(parentId: string | null): number;
}
