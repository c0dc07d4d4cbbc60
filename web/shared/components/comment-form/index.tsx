/** The post / reply / edit form: labelled fields, a character count, errors beside the text. */
import { useRef, useState } from 'preact/hooks';

/** Labels of the formatting toolbar, and the renderer its preview uses. */
export interface Formatting {
  labels: { toolbar: string; bold: string; italic: string; code: string; link: string; preview: string };
  /** The server's own renderer (actors/page/render.ts): the preview is what will be posted. */
  render(text: string): string;
}

export interface CommentFormProps {
  /** Unique within the widget, for ids. */
  formId: string;
  label: string;
  submitLabel: string;
  cancelLabel?: string;
  initial?: string;
  askName: boolean;
  nameLabel: string;
  emailLabel: string;
  maxLength: number;
  error: string | undefined;
  tooLongText: string;
  onSubmit(values: { text: string; name: string; email: string }): Promise<boolean>;
  onCancel?(): void;
  autoFocus?: boolean;
  /** Without JavaScript: the form posts here, with these hidden fields. */
  action?: string;
  hidden?: Readonly<Record<string, string>>;
  /** The markdown toolbar and preview (left out without JavaScript). */
  formatting?: Formatting;
}

export function CommentForm(p: CommentFormProps) {
  const [text, setText] = useState(p.initial ?? '');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [previewing, setPreviewing] = useState(false);
  const area = useRef<HTMLTextAreaElement | null>(null);
  /** Puts markdown around the selection, keeping it selected. */
  const wrap = (before: string, after: string) => {
    const el = area.current;
    if (!el) return;
    const start = el.selectionStart;
    const end = el.selectionEnd;
    setText(text.slice(0, start) + before + text.slice(start, end) + after + text.slice(end));
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(start + before.length, end + before.length);
    });
  };
  const f = p.formatting;
  const tooLong = text.length > p.maxLength;
  const errorId = `${p.formId}-err`;
  const countId = `${p.formId}-count`;
  const shownError = tooLong ? p.tooLongText : p.error;
  return (
    <form
      aria-label={p.label}
      method={p.action ? 'post' : undefined}
      action={p.action}
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy || tooLong) return;
        setBusy(true);
        const ok = await p.onSubmit({ text, name, email });
        setBusy(false);
        if (ok) setText('');
      }}
    >
      {p.hidden && Object.entries(p.hidden).map(([name, value]) => <input type="hidden" name={name} value={value} />)}
      <textarea
        name="comment"
        required
        aria-label={p.label}
        placeholder={p.label}
        value={text}
        ref={(el) => {
          area.current = el;
          if (p.autoFocus && el && !el.dataset['focused']) {
            el.dataset['focused'] = '1';
            el.focus();
          }
        }}
        aria-describedby={`${countId}${shownError ? ` ${errorId}` : ''}`}
        aria-invalid={shownError ? 'true' : undefined}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      {f && (
        <div class="row" role="toolbar" aria-label={f.labels.toolbar}>
          <button type="button" onClick={() => wrap('**', '**')}>
            {f.labels.bold}
          </button>
          <button type="button" onClick={() => wrap('*', '*')}>
            {f.labels.italic}
          </button>
          <button type="button" onClick={() => wrap('`', '`')}>
            {f.labels.code}
          </button>
          <button type="button" onClick={() => wrap('[', '](https://)')}>
            {f.labels.link}
          </button>
          <button type="button" aria-pressed={previewing} onClick={() => setPreviewing(!previewing)}>
            {f.labels.preview}
          </button>
        </div>
      )}
      {f && previewing && <div class="body notice" role="region" aria-label={f.labels.preview} dangerouslySetInnerHTML={{ __html: f.render(text) }} />}
      <div class="count" id={countId}>
        {text.length} / {p.maxLength}
      </div>
      {p.askName && (
        <div class="row">
          <label>
            {p.nameLabel}
            <input name="commenterName" autocomplete="name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            {p.emailLabel}
            <input name="commenterEmail" type="email" autocomplete="email" value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          </label>
        </div>
      )}
      {shownError && (
        <p class="err" id={errorId} role="alert">
          {shownError}
        </p>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={!p.action && (busy || tooLong || text.trim() === '')}>
          {p.submitLabel}
        </button>
        {p.onCancel && (
          <button type="button" onClick={p.onCancel}>
            {p.cancelLabel}
          </button>
        )}
      </div>
    </form>
  );
}
