// Entry point: two screens, the run list (with the new-run and upload forms) and the run view (toolbar,
// then the split: minimap + timeline + legend above, the details pane below). The view state lives in the
// URL (state/url.js), so reloading or sharing the address reproduces the view.
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
import { renderLegend, attachLegend } from './views/legend.js';
import { RunList } from './views/run-list.js';
import { NewRunForm } from './views/new-run-form.js';
import { UploadForm } from './views/upload-form.js';
import { BundleUploadForm } from './views/workload/bundle-upload-form.js';
import { Splitter } from './views/splitter.js';
import { HelpOverlay } from './views/help.js';
import { LiveRun } from './views/live-run.js';
import { renderFailed } from './views/failed-run.js';

const $ = (sel) => document.querySelector(sel);
const initial = readUrl();
const state = atom({ speed: 1000, tab: 'summary', ...initial });
const ch = new Channel();

const runList = new RunList($('#run-list'), (id) => go(id));
const form = new NewRunForm($('#new-run-form'), () => runList.refresh());
new UploadForm($('#upload-form'), () => form.load());
new BundleUploadForm($('#bundle-upload-form'), () => form.load());
const timeline = new Timeline($('#timeline'), state, ch);
const toolbar = new Toolbar($('#toolbar'), state, timeline);
const inspector = new Inspector($('#inspector'), state, ch);
const minimap = new Minimap($('#minimap'), state, ch);
const splitter = new Splitter($('#split'), $('.splitter'), $('.pane-bottom'));
new HelpOverlay($('#help-overlay'), $('.help-btn'));
let legendPresent = null;
const drawLegend = () => { if (timeline.src && timeline.src.meta) renderLegend($('#legend'), timeline.src.meta.states, legendPresent); };
attachLegend($('#legend'), () => { drawLegend(); timeline.restyle(); });
timeline.onCompare = (metaB) => inspector.setCompare(metaB);
timeline.onError = (e) => { $('#view-error').textContent = e.message; };
timeline.onData = (src) => {
  if (src !== timeline.src) return;
  const g = src.groups.ctr;
  if (g && g.hist_states) { legendPresent = new Set(g.hist_states.map((i) => src.meta.states[i])); drawLegend(); }
};
// a PTX line named elsewhere (memory tab, compare table): show it in the PTX tab
$('#inspector').addEventListener('click', (e) => {
  const a = e.target.closest('a[data-line]');
  if (!a) return;
  e.preventDefault();
  const line = Number(a.dataset.line);
  state.set({ tab: 'ptx', line, pcs: inspector.ptx.pcsOf(line) });
});
// any state colour or ? with data-gloss="STATE" opens the glossary at that state
document.addEventListener('click', (e) => {
  const a = e.target.closest('[data-gloss]');
  if (!a) return;
  e.preventDefault();
  state.set({ tab: 'glossary', gloss: a.dataset.gloss });
});

const live = new LiveRun({ state, timeline, minimap, inspector, toolbar, status: $('#live') });
ch.onProgress = (f) => live.progress(f);

// for tests and benchmarks (tests/e2e, benchmarks/browser_frames.py)
window.__simtscope = { state, channel: ch, timeline, inspector, frameStats, lastExport, stateColours: STATE_COLOURS, splitter, live };

state.subscribe((s) => { if (s.run) writeUrl(s, live.following()); });

async function showRun(id) {
  $('#runs-screen').hidden = true; $('#run-screen').hidden = false;
  runList.stop();
  $('#view-error').textContent = '';
  $('#run-failed').hidden = true; $('#split').hidden = false; $('#run-screen').classList.remove('failed');
  legendPresent = null;
  try {
    const run = await api(`/api/runs/${encodeURIComponent(id)}`);
    const runs = await api('/api/runs?children=1');       // a workload's launches compare with each other too
    if (['failed', 'faulted', 'cancelled', 'interrupted'].includes(run.status) && !run.cycles) {
      renderFailed($('#run-failed'), run);                           // the error on its own page
      $('#run-failed').hidden = false; $('#split').hidden = true; $('#run-screen').classList.add('failed');
      toolbar.setRun({ run, status: run.status, level: run.level, num_sms: 0 }, runs);
      return;
    }
    ch.watch(id);
    const meta = await live.open(id, run);                          // waits while the run is queued
    if (!meta) return;
    toolbar.setRun(meta, runs);
    if (meta.run && meta.run.parent) {                     // a launch of a workload run: the way back to it
      const a = document.createElement('a');
      a.href = `/workload?run=${encodeURIComponent(meta.run.parent)}`; a.textContent = '◀ workload'; a.dataset.testid = 'back-workload';
      $('#toolbar').prepend(a);
    }
    inspector.setRun(meta);
    drawLegend();
    if (meta.status === 'faulted' || meta.status === 'failed' || meta.status === 'interrupted') {
      renderFailed($('#run-failed'), { ...run, status: meta.status, message: meta.message || run.message }, true);
      $('#run-failed').hidden = false;
    }
    await minimap.open(id);
    splitter.apply();
  } catch (e) {
    $('#view-error').textContent = `Cannot open run ${id}: ${e.message}`;
  }
}

function showRuns() {
  $('#run-screen').hidden = true; $('#runs-screen').hidden = false;
  live.close();
  ch.watch(null);
  runList.refresh();
  form.load().catch((e) => { $('#new-run-form .form-msg').textContent = e.message; });
}

function go(id) {
  if (id) {
    state.set({ run: id, a: undefined, b: undefined, cursor: undefined, sm: undefined, cmp: undefined, line: undefined, pin: undefined });
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
$('#run-failed').addEventListener('click', (e) => { if (e.target.closest('a.back')) { e.preventDefault(); go(null); } });

if (initial.run) {
  if (initial.line !== undefined) state.set({ tab: initial.tab || 'ptx' });
  showRun(initial.run).then(() => { if (initial.line !== undefined) state.set({ pcs: inspector.ptx.pcsOf(initial.line) }); });
} else showRuns();
