// The details pane, in tabs: the run summary (summary-view.js); for the cursor cycle the warps of the
// chosen SM (state, PC, PTX instruction, CTA, since/until) and the memory (sampled requests in flight by
// level, queue depths); the PTX source (ptx-view.js); the glossary of warp states (glossary-view.js). It asks for a snapshot whenever the cursor or the SM changes; requests for one slot
// supersede each other, so fast scrubbing costs at most the flow-control window.
import { stateColour } from '../lib/colours.js';
import { escapeHtml, exact, hex } from '../lib/format.js';
import { toNumbers } from '../net/wire.js';
import { PtxView } from './ptx-view.js';
import { schedule } from '../render/scheduler.js';
import { renderSummary } from './summary-view.js';
import { renderGlossary, focusGlossary } from './glossary-view.js';
import { renderDiff } from './diff-view.js';
import { renderRange } from './range-view.js';
import { api } from '../net/api.js';

const NO_PC = 0xffffffff;             // the recorder's pc for a warp without a next instruction

export class Inspector {
  constructor(root, state, channel) {
    this.root = root; this.state = state; this.ch = channel; this.last = null; this.meta = null;
    root.innerHTML = `
      <div class="tabs" role="tablist">
        <button data-tab="summary" role="tab" data-testid="tab-summary">Summary</button>
        <button data-tab="warps" role="tab">Warps</button><button data-tab="memory" role="tab">Memory</button>
        <button data-tab="ptx" role="tab" data-testid="tab-ptx">PTX source</button>
        <button data-tab="glossary" role="tab" data-testid="tab-glossary">Glossary</button>
        <button data-tab="range" role="tab" data-testid="tab-range">Range</button>
        <button data-tab="diff" role="tab" data-testid="tab-diff" hidden>Compare A/B</button>
        <span class="inspector-title" data-testid="inspector-title"></span>
      </div>
      <div class="tab-body" data-pane="summary"></div>
      <div class="tab-body" data-pane="glossary"></div>
      <div class="tab-body" data-pane="diff"></div>
      <div class="tab-body" data-pane="range"></div>
      <div class="tab-body" data-pane="warps" data-testid="warps"><div class="warps-table"></div><div class="history" data-testid="history"></div></div>
      <div class="tab-body" data-pane="memory" data-testid="memory"></div>
      <div class="tab-body" data-pane="ptx" data-testid="ptx"></div>`;
    this.ptx = new PtxView(root.querySelector('[data-pane="ptx"]'), state);
    root.querySelectorAll('.tabs button').forEach((b) => b.addEventListener('click', () => state.set({ tab: b.dataset.tab })));
    root.querySelector('.warps-table').addEventListener('click', (e) => {       // a row pins (or unpins) its warp
      const tr = e.target.closest('tr[data-slot]');
      if (tr) { const slot = Number(tr.dataset.slot); state.set({ pin: state.get().pin === slot ? null : slot }); }
    });
    state.subscribe((s, changed) => {
      if (changed.includes('tab')) { this._tabs(); if (this.last) this.render(this.last); }
      if (changed.includes('gloss') || (changed.includes('tab') && s.tab === 'glossary' && s.gloss)) {
        focusGlossary(this.root.querySelector('[data-pane="glossary"]'), s.gloss);
      }
      if (changed.includes('cursor') || changed.includes('sm')) this.request();
      if (this.meta && (changed.includes('ra') || changed.includes('rb') || (changed.includes('tab') && s.tab === 'range') ||
          (changed.includes('sm') && s.tab === 'range'))) renderRange(this.root.querySelector('[data-pane="range"]'), this.meta, s);
      if (changed.includes('pin') || (changed.includes('cursor') && s.pin !== null && s.pin !== undefined)) this._history();
    });
  }

  setRun(meta) {
    this.meta = meta; this.ptx.setRun(meta);
    renderSummary(this.root.querySelector('[data-pane="summary"]'), meta);
    renderGlossary(this.root.querySelector('[data-pane="glossary"]'), meta.states);
    if (this.metaB) renderDiff(this.root.querySelector('[data-pane="diff"]'), meta, this.metaB);
    if (this.state.get().gloss) focusGlossary(this.root.querySelector('[data-pane="glossary"]'), this.state.get().gloss);
    this._tabs(); this.request();
  }

  // the run to compare with (its meta) or null: the Compare tab, B's columns in PTX, B's memory snapshot
  setCompare(metaB) {
    this.metaB = metaB;
    this.root.querySelector('[data-tab=diff]').hidden = !metaB;
    if (this.meta) renderDiff(this.root.querySelector('[data-pane="diff"]'), this.meta, metaB);
    this.ptx.setCompare(metaB);
    if (!metaB && this.state.get().tab === 'diff') this.state.set({ tab: 'summary' });
    this.request();
  }

  _tabs() {
    const tab = this.state.get().tab || 'summary';
    this.root.querySelectorAll('.tabs button').forEach((b) => b.classList.toggle('active', b.dataset.tab === tab));
    this.root.querySelectorAll('.tab-body').forEach((p) => { p.hidden = p.dataset.pane !== tab; });
  }

  request() {
    const s = this.state.get();
    if (!this.meta || s.cursor === undefined || s.cursor === null) return;
    const run = this.meta.run.id;
    this.ch.request('snapshot', { run, cycle: s.cursor, sm: s.sm || 0 }, 'snapshot')
      .then((f) => { if (f) schedule('dom', 'inspector', () => this.render(f)); })
      .catch((e) => { this.root.querySelector('[data-pane="warps"]').textContent = e.message; });
    this.lastB = null;
    if (this.metaB) {
      this.ch.request('snapshot', { run: this.metaB.run.id, cycle: s.cursor, sm: s.sm || 0, slot: 'b' }, 'snapshot:b')
        .then((f) => { if (f) { this.lastB = f; if (this.last && this.state.get().tab === 'memory') schedule('dom', 'inspector', () => this.render(this.last)); } })
        .catch(() => {});
    }
  }

  // Only the visible tab is drawn (the others when they are shown); the warps table is built once per
  // shape and then updated cell by cell, so scrubbing costs a few text updates per frame.
  render(f) {
    this.last = f;
    this.root.querySelector('.inspector-title').textContent = `cycle ${exact(f.cycle)} · SM ${f.sm}`;
    const tab = this.state.get().tab || 'summary';
    if (tab === 'warps') this._warps(f);
    else if (tab === 'memory') this._memory(f);
    else if (tab === 'ptx') this._ptxMarks(f);
    if (this.onRender) this.onRender(f);
  }

  _ptxMarks(f) {
    const resident = [];
    if (f.warps) {
      const st = f.warps.cols.state, names = this.meta.states;
      for (let i = 0; i < f.warps.n; i++) if (names[st[i]] !== 'idle' && names[st[i]] !== 'done') resident.push(f.warps.cols.pc[i]);
    }
    this.ptx.markCursor(resident);
  }

  // the pinned warp (click its row in the heatmap): highlighted here, and its recent state runs listed
  async _history() {
    const el = this.root.querySelector('.history'), s = this.state.get();
    if (!this.meta || s.pin === null || s.pin === undefined) { el.innerHTML = ''; this._pinRow(); return; }
    const cycle = s.cursor || 0;
    this._pinRow();
    let h;
    try { h = await api(`/api/runs/${encodeURIComponent(this.meta.run.id)}/warp?sm=${s.sm || 0}&slot=${s.pin}&cycle=${cycle}`); } catch (e) {
      el.innerHTML = `<p class="error">${escapeHtml(e.message)}</p>`; return;
    }
    if (this.state.get().pin !== s.pin || (this.state.get().cursor || 0) !== cycle) return;   // stale
    el.innerHTML = `<h4>Warp slot ${h.slot} of SM ${h.sm}: its states and instructions around cycle ${exact(cycle)}
      <span class="muted small">(each row: a run of one state; the instruction it issued or waits to issue)</span></h4>
      <table class="small history-table"><thead><tr><th class="num">from</th><th class="num">to</th><th class="num">cycles</th><th>state</th><th>PTX line</th><th>instruction</th></tr></thead>
      <tbody>${h.runs.map((r) => `<tr class="${r.start <= cycle && cycle < r.end ? 'now' : ''}"><td class="num">${exact(r.start)}</td><td class="num">${exact(r.end - 1)}</td>
        <td class="num">${exact(r.end - r.start)}</td><td><a href="#" class="swatch gloss-link" data-gloss="${r.state}" style="background:${stateColour(this.meta.states, this.meta.states.indexOf(r.state))}"></a>${r.state}</td>
        <td>${r.line ? `<a href="#" data-line="${r.line}">${r.line}</a>` : ''}</td><td class="code">${escapeHtml((r.text || '').replace(/\s+/g, ' '))}</td></tr>`).join('')}</tbody></table>`;
    const now = el.querySelector('tr.now');
    if (now && this.state.get().tab === 'warps') now.scrollIntoView({ block: 'nearest' });
  }

  _pinRow() {
    const pin = this.state.get().pin;
    (this.rows || []).forEach((r, i) => r.tr.classList.toggle('pinned', i === pin));
    const tr = this.rows && this.rows[pin];
    if (tr && this.state.get().tab === 'warps') tr.tr.scrollIntoView({ block: 'nearest' });
  }

  _warps(f) {
    const pane = this.root.querySelector('[data-pane="warps"] .warps-table');
    if (!f.warps) {
      this.rows = null;
      pane.innerHTML = '<p class="muted">This SM has no warp-state recording (level summary, or not in the recorded SMs).</p>';
      return;
    }
    const w = f.warps, c = w.cols, states = this.meta.states;
    if (!this.rows || this.rows.length !== w.n || !pane.contains(this.rows[0] && this.rows[0].tr)) {
      pane.innerHTML = `<table class="warps"><thead><tr><th>slot</th><th>CTA</th><th>state</th>
        <th title="cycles spent in this state so far">for</th><th title="cycles until the state changes">until</th>
        <th>PC</th><th>PTX instruction</th><th title="the lanes that execute this PC (reconvergence-stack top)">active mask</th></tr></thead>
        <tbody>${Array.from({ length: w.n }, (_, i) => `<tr data-slot="${i}"><td>${i}</td><td></td>
          <td><span class="swatch"></span><span class="state"></span></td><td class="num"></td><td class="num"></td>
          <td class="num"></td><td class="code"></td><td class="muted"></td></tr>`).join('')}</tbody></table>`;
      this.rows = [...pane.querySelectorAll('tbody tr')].map((tr) => ({ tr, td: tr.children, sw: tr.querySelector('.swatch'),
        st: tr.querySelector('.state'), key: null }));
    }
    const since = toNumbers(c.since), until = toNumbers(c.until);
    for (let i = 0; i < w.n; i++) {
      const st = states[c.state[i]], resident = st !== 'idle';
      const hasPc = resident && c.pc[i] !== NO_PC;      // a draining or finished warp has no next instruction
      const r = this.rows[i];
      const vals = [resident ? String(c.cta[i]) : '', null, exact(Math.max(0, -since[i])),
        until[i] >= 0 ? exact(until[i]) : '…', hasPc ? String(c.pc[i]) : (resident ? '—' : ''),
        hasPc ? w.text[i].replace(/\s+/g, ' ') : '', this._mask(c, i, hasPc)];
      const key = st + vals.join('|');
      if (key === r.key) continue;
      r.key = key;
      r.tr.className = (resident ? '' : 'idle') + (i === this.state.get().pin ? ' pinned' : '');
      r.sw.style.background = stateColour(states, c.state[i]);
      r.st.textContent = st;
      [1, 3, 4, 5, 6].forEach((col, j) => { r.td[col].textContent = [vals[0], vals[2], vals[3], vals[4], vals[5]][j]; });
      r.td[7].innerHTML = vals[6];
    }
    this._pinRow();
  }

  _mask(c, i, resident) {
    const m = c.mask || c.active_mask || c.active;
    if (!resident) return '';
    if (!m) return '<span title="not recorded in this run file">–</span>';
    let v = m[i] >>> 0, n = 0;
    for (let x = v; x; x &= x - 1) n++;
    return `<span class="code">0x${v.toString(16).padStart(8, '0')}</span> <span title="active lanes">${n}/32</span>`;
  }

  _memory(f) {
    const pane = this.root.querySelector('[data-pane="memory"]');
    const b = this.metaB && this.lastB && this.lastB.cycle === f.cycle ? this.lastB : null;
    if (!this.metaB) { pane.innerHTML = this._memoryHtml(f, this.meta); return; }
    pane.innerHTML = `<div class="ab"><section><h4 class="ab-title">A · ${escapeHtml(this.meta.run.name)}</h4>${this._memoryHtml(f, this.meta)}</section>
      <section><h4 class="ab-title">B · ${escapeHtml(this.metaB.run.name)}</h4>${b ? this._memoryHtml(b, this.metaB) : '<p class="muted">loading…</p>'}</section></div>`;
  }

  _memoryHtml(f, meta) {
    const parts = [];
    const q = f.queues || {};
    if (q.partitions) {
      const p = q.partitions;
      parts.push(`<h4>Memory partitions, interval ${exact(q.interval[0])}–${exact(q.interval[1])}</h4><table class="small"><tr><th>partition</th>${p.part.map((x) => `<th>${x}</th>`).join('')}</tr>` +
        ['l2_queue', 'dram_queue', 'icnt_queue'].map((k) => `<tr><td>${k}</td>${p[k].map((v) => `<td class="num">${v}</td>`).join('')}</tr>`).join('') + '</table>');
    }
    if (q.sms) {
      const i = q.sms.sm.indexOf(f.sm);
      if (i >= 0) parts.push(`<p>SM ${f.sm}: MSHRs in use ${q.sms.mshr_used[i]}, LD/ST queue ${q.sms.ldst_queue[i]}, resident warps ${q.sms.warps_active[i]}</p>`);
    }
    if (f.requests) {
      const r = f.requests, c = r.cols, levels = meta.mem_levels;
      parts.push(`<h4>Sampled requests in flight: ${r.count}</h4><p>` +
        Object.entries(r.per_level).map(([k, v]) => `${k}: <b>${v}</b>`).join(' · ') + '</p>');
      const age = toNumbers(c.t_issue);
      const rows = [];
      for (let i = 0; i < Math.min(r.n, 64); i++) {
        const k = (meta.kernels || [])[0] || {}, ln = (k.pc_line || [])[c.pc[i]], txt = (k.pc_text || [])[c.pc[i]] || '';
        rows.push(`<tr><td>${levels[c.level[i]]}</td><td>${c.sm[i]}/${c.slot[i]}</td><td class="ptxref" title="PC ${c.pc[i]}">${ln ? `<a href="#" data-line="${ln}">line ${ln}</a>` : `pc ${c.pc[i]}`}
          <span class="code">${escapeHtml(txt.replace(/\s+/g, ' '))}</span></td>
          <td class="code">${hex(Number(c.addr[i]))}</td><td class="num">${c.size[i]}</td><td>${c.write[i] ? 'store' : 'load'}</td>
          <td class="num">${exact(-age[i])}</td><td>${['', 'L1', 'L2', 'DRAM'][c.hit_level[i]] || ''}</td></tr>`);
      }
      if (rows.length) {
        parts.push(`<table class="small"><thead><tr><th>at</th><th>SM/slot</th><th>PTX line</th><th>address</th><th>bytes</th><th>kind</th><th>age</th><th>served by</th></tr></thead><tbody>${rows.join('')}</tbody></table>`);
      }
    }
    return parts.join('') || '<p class="muted">No memory data at this cycle.</p>';
  }
}
