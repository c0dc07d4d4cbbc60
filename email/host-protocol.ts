/** What the server asks of its render host (render-host.ts) and what it answers. */
import type { RenderJob, RenderOutcome } from './sandbox.js';

/** One email to render and build into a raw message, in one round trip. */
export interface EmailBuildJob {
  /** The tenant's template, or null for the built-in one alone. */
  readonly custom: RenderJob | null;
  /** The built-in template: sent when the tenant's fails (or there is none). */
  readonly builtIn: RenderJob;
  readonly from: string;
  readonly to: string;
  /** With angle brackets: `<id@host>`. */
  readonly messageId: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A failed render. */
export type RenderFailureOutcome = Extract<RenderOutcome, { ok: false }>;

/** The built email: its raw message and subject, and how the tenant's template failed if it did. */
export interface BuiltEmail {
  /** Null when no template rendered (see the failures). */
  readonly raw: Uint8Array | null;
  readonly subject: string;
  readonly customFailure: RenderFailureOutcome | null;
  readonly builtInFailure: RenderFailureOutcome | null;
}

/** A task for the render host. */
export type HostTask = { readonly job: RenderJob } | { readonly build: EmailBuildJob };

/** The render host's answer to task `id`. */
export interface HostAnswer {
  readonly id: number;
  readonly outcome?: RenderOutcome;
  readonly built?: BuiltEmail;
  readonly error?: string;
}
