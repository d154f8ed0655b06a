// Entry point: two screens, the run list (with the new-run and upload forms) and the run view (toolbar,
// minimap, timeline, inspector). The view state lives in the URL (state/url.js), so reloading or sharing
// the address reproduces the view.
import { atom } from './state/store.js';
import { readUrl, writeUrl } from './state/url.js';
import { Channel } from './net/socket.js';
import { api } from './net/api.js';
import { frameStats } from './render/scheduler.js';
import { lastExport } from './render/export.js';
import { STATE_COLOURS } from './lib/colours.js';
import { Timeline } from './views/timeline.js';
import { Toolbar } from './views/toolbar.js';
import { Inspector } from './views/inspector.js';
import { Minimap } from './views/minimap.js';
import { renderLegend } from './views/legend.js';
import { RunList } from './views/run-list.js';
import { NewRunForm } from './views/new-run-form.js';
import { UploadForm } from './views/upload-form.js';
import { BundleUploadForm } from './views/workload/bundle-upload-form.js';

const $ = (sel) => document.querySelector(sel);
const initial = readUrl();
const state = atom({ speed: 1000, tab: 'warps', ...initial });
const ch = new Channel();

const runList = new RunList($('#run-list'), (id) => go(id));
const form = new NewRunForm($('#new-run-form'), () => runList.refresh());
new UploadForm($('#upload-form'), () => form.load());
new BundleUploadForm($('#bundle-upload-form'), () => form.load());
const timeline = new Timeline($('#timeline'), state, ch);
const toolbar = new Toolbar($('#toolbar'), state, timeline);
const inspector = new Inspector($('#inspector'), state, ch);
const minimap = new Minimap($('#minimap'), state, ch);
timeline.onError = (e) => { $('#view-error').textContent = e.message; };
timeline.onData = (src) => {
  if (src !== timeline.src) return;
  const g = src.groups.ctr;
  if (g && g.hist_states) renderLegend($('#legend'), src.meta.states, new Set(g.hist_states.map((i) => src.meta.states[i])));
};

// for tests and benchmarks (tests/e2e, benchmarks/browser_frames.py)
window.__simtscope = { state, channel: ch, timeline, inspector, frameStats, lastExport, stateColours: STATE_COLOURS };

state.subscribe((s) => { if (s.run) writeUrl(s); });

let lastSealed = 0, reloadTimer = null;
ch.onProgress = (f) => {
  if (!timeline.src || f.run !== timeline.src.run) return;
  $('#live').textContent = f.status === 'running' && f.progress
    ? `simulating… cycle ${f.progress.cycle.toLocaleString('en-US')}, ${f.progress.ctas_done}/${f.progress.ctas_total} CTAs` : '';
  const sealed = Math.max(f.sealed_cycle || 0, f.ctr_cycle || 0, f.end_cycle || 0);
  if (sealed !== lastSealed && !reloadTimer) {        // live frames: pull again, at most twice a second
    reloadTimer = setTimeout(async () => {
      reloadTimer = null; lastSealed = sealed;
      timeline.src.meta.end_cycle = Math.max(timeline.src.meta.end_cycle || 0, sealed);
      if (f.status !== 'running') { await timeline.src.loadMeta(); inspector.setRun(timeline.src.meta); }
      timeline.src.invalidate(); timeline.refresh(); minimap.reload();
    }, 500);
  }
};

async function showRun(id) {
  $('#runs-screen').hidden = true; $('#run-screen').hidden = false;
  runList.stop();
  $('#view-error').textContent = '';
  try {
    const meta = await timeline.open(id);
    const runs = await api('/api/runs?children=1');       // a workload's launches compare with each other too
    toolbar.setRun(meta, runs);
    inspector.setRun(meta);
    renderLegend($('#legend'), meta.states);
    await minimap.open(id);
    ch.watch(id);
  } catch (e) {
    $('#view-error').textContent = `Cannot open run ${id}: ${e.message}`;
  }
}

function showRuns() {
  $('#run-screen').hidden = true; $('#runs-screen').hidden = false;
  ch.watch(null);
  runList.refresh();
  form.load().catch((e) => { $('#new-run-form .form-msg').textContent = e.message; });
}

function go(id) {
  if (id) {
    state.set({ run: id, a: undefined, b: undefined, cursor: undefined, sm: undefined, cmp: undefined, line: undefined });
    history.pushState(null, '', `?run=${encodeURIComponent(id)}`);
    showRun(id);
  } else {
    history.pushState(null, '', '/');
    showRuns();
  }
}

window.addEventListener('popstate', () => {
  const u = readUrl();
  state.set({ ...u, run: u.run });
  if (u.run) showRun(u.run); else showRuns();
});
$('#toolbar').addEventListener('click', (e) => { if (e.target.closest('a.back')) { e.preventDefault(); go(null); } });

if (initial.run) {
  if (initial.line !== undefined) state.set({ tab: initial.tab || 'ptx' });
  showRun(initial.run).then(() => { if (initial.line !== undefined) state.set({ pcs: inspector.ptx.pcsOf(initial.line) }); });
} else showRuns();
