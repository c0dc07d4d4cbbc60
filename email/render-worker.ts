/** The Piscina worker that renders email templates (see sandbox.ts); one render per task. */
import { render, type RenderJob, type RenderOutcome } from './sandbox.js';

export default function renderTask(job: RenderJob): RenderOutcome {
  return render(job);
}
