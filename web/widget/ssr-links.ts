/** Links and form targets when the thread is rendered on the server for readers without JavaScript. */
export interface SsrLinks {
  /** The page's address with these query values changed. */
  href(changes: Record<string, string | undefined>): string;
  /** Form targets (POST). */
  readonly postAction: string;
  readonly voteAction: string;
  /** Hidden fields every form carries (tenant, page, session, sort). */
  readonly hidden: Readonly<Record<string, string>>;
  /** The comment whose reply form is open. */
  readonly replyTo: string | undefined;
  /** An error to show beside the form that caused it. */
  readonly error: { where: string; text: string } | undefined;
}
