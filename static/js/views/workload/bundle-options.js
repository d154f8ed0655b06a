// Whole-model bundles in the new-run form's workload list: one <optgroup>, examples then uploads.
import { escapeHtml } from '../../lib/format.js';
import { deviceShort } from '../../lib/measured.js';

export function bundleOptions(bundles) {
  if (!bundles.size) return '';
  const opt = (w) => `<option value="${escapeHtml(w.id)}">${escapeHtml(w.name)}${w.source === 'upload' ? ' (uploaded)' : ''}${w.demo ? ' ★' : ''} · ${w.launches} launches${(w.opaque || []).length ? ` (${w.opaque.length} opaque)` : ''}${w.hw_cycles.some((c) => c) ? ` · ${escapeHtml(deviceShort((w.hardware || {}).device))} measured` : ''}${w.gaps_measured ? ' · gaps' : ''}</option>`;
  return `<optgroup label="whole models (gpu-workload bundles)">${[...bundles.values()].map(opt).join('')}</optgroup>`;
}
