// A run that failed (or was cancelled or interrupted) before recording anything gets its own page: what
// went wrong, in the worker's words, and what was asked for, instead of an empty timeline. A run that
// failed after recording part of its timeline shows the same box above the (partial) timeline.
import { escapeHtml } from '../lib/format.js';

export function renderFailed(root, run, partial = false) {
  const what = { failed: 'failed', cancelled: 'was cancelled', interrupted: 'was interrupted (the server stopped while it ran)', faulted: 'faulted' }[run.status] || run.status;
  root.innerHTML = `<h3 data-testid="failed-title">Run ${escapeHtml(run.name || run.id)} ${escapeHtml(what)}</h3>
    <pre data-testid="failed-message">${escapeHtml(run.message || 'no message recorded')}</pre>
    <table class="kv small"><tr><th>workload</th><td>${escapeHtml(run.workload || '')}</td></tr>
      <tr><th>config</th><td>${escapeHtml(run.config || '')}</td></tr>
      <tr><th>overrides</th><td class="code">${escapeHtml((run.overrides || []).join(' ') || '(none)')}</td></tr>
      <tr><th>recording</th><td>${escapeHtml(run.level || '')}</td></tr><tr><th>run id</th><td>${escapeHtml(run.id)}</td></tr></table>
    <p>${partial ? 'The timeline below shows what was recorded before it stopped.' : '<a href="/" class="back">◀ back to the runs</a> to start it again with other settings.'}</p>`;
}
