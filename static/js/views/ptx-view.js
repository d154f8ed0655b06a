// The PTX source of the run's kernel with, per line, the warp instructions issued there and a bar of the
// stall cycles charged to it, split by reason (colours as everywhere). Lines where warps of the chosen SM
// are at the cursor get a marker. A click selects a line: its PCs' issues are highlighted on the timeline.
import { STATE_COLOURS } from '../lib/colours.js';
import { escapeHtml, num, exact } from '../lib/format.js';
import { toNumbers } from '../net/wire.js';

export class PtxView {
  constructor(root, state) {
    this.root = root; this.state = state; this.lines = []; this.kernel = 0;
    root.addEventListener('click', (e) => {
      const tr = e.target.closest('tr[data-line]');
      if (!tr) return;
      const line = Number(tr.dataset.line);
      this.state.set({ line: this.state.get().line === line ? null : line, pcs: null });
      this.state.set({ pcs: this.pcsOf(this.state.get().line) });
    });
    state.subscribe((s, changed) => { if (changed.includes('line')) this._select(); });
  }

  pcsOf(line) {
    if (line === null || line === undefined || !this.k) return [];
    const out = [];
    (this.k.pc_line || []).forEach((l, pc) => { if (l === line) out.push(pc); });
    return out;
  }

  setRun(meta) {
    this.meta = meta;
    const k = (meta.kernels || [])[this.kernel];
    this.k = k;
    if (!k) { this.root.innerHTML = '<p class="muted">No PTX recorded for this run.</p>'; return; }
    const src = (k.source || '').split('\n');
    const pcLine = k.pc_line || [];
    const nst = meta.states.length;
    const issued = new Map(), stalls = new Map();
    const g = meta.groups && meta.groups.pc_stats;
    if (g) {
      const iss = toNumbers(g.cols.issued), st = toNumbers(g.cols.stalls);
      for (let i = 0; i < g.n; i++) {
        const line = pcLine[g.cols.pc[i]];
        if (line === undefined) continue;
        issued.set(line, (issued.get(line) || 0) + iss[i]);
        const v = stalls.get(line) || new Float64Array(nst);
        for (let s = 0; s < nst; s++) v[s] += st[i * nst + s];
        stalls.set(line, v);
      }
    }
    const pcs0 = Number.isInteger(k.entry_pc) ? k.entry_pc : 0;              // this kernel's PCs only
    const pcs1 = Number.isInteger(k.end_pc) ? k.end_pc : pcLine.length;
    const used = pcLine.slice(pcs0, pcs1).filter((x) => x > 0);
    const lo = used.length ? Math.max(1, Math.min(...used) - 3) : 1;
    const hi = used.length ? Math.min(src.length, Math.max(...used) + 2) : src.length;
    let maxStall = 1;
    for (const v of stalls.values()) maxStall = Math.max(maxStall, v.reduce((a, b) => a + b, 0));
    const rows = [];
    for (let ln = lo; ln <= hi; ln++) {
      const iss = issued.get(ln);
      const v = stalls.get(ln);
      let bar = '';
      if (v) {
        const tot = v.reduce((a, b) => a + b, 0);
        const parts = [];
        v.forEach((c, s) => {
          if (c > 0) parts.push(`<span style="width:${(100 * c / maxStall).toFixed(2)}%;background:${STATE_COLOURS[meta.states[s]]}" title="${meta.states[s]}: ${exact(c)} cycles"></span>`);
        });
        bar = `<div class="stallbar" title="${exact(tot)} stall cycles">${parts.join('')}</div>`;
      }
      rows.push(`<tr data-line="${ln}" class="${iss ? 'hot' : ''}"><td class="ln">${ln}</td><td class="mark"></td>
        <td class="num">${iss ? num(iss) : ''}</td><td class="bar">${bar}</td><td class="code">${escapeHtml(src[ln - 1] || '')}</td></tr>`);
    }
    this.root.innerHTML = `<p class="muted">Kernel <b>${escapeHtml(k.name)}</b>: warp instructions issued per line and stall cycles charged to it
      (bar, by reason). Click a line to highlight its issues in the warp heatmap.</p>
      <table class="ptx"><thead><tr><th>line</th><th></th><th>issued</th><th>stalls</th><th>PTX</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
    this._select();
  }

  _select() {
    const line = this.state.get().line;
    this.root.querySelectorAll('tr[data-line]').forEach((tr) => tr.classList.toggle('selected', Number(tr.dataset.line) === line));
  }

  // lines where the chosen SM's warps are at the cursor: a dot per warp (up to 8)
  markCursor(pcs) {
    if (!this.k) return;
    const count = new Map();
    for (const pc of pcs) { const l = (this.k.pc_line || [])[pc]; if (l) count.set(l, (count.get(l) || 0) + 1); }
    this.root.querySelectorAll('tr[data-line]').forEach((tr) => {
      const n = count.get(Number(tr.dataset.line)) || 0;
      tr.querySelector('.mark').textContent = n ? '●'.repeat(Math.min(n, 8)) + (n > 8 ? '+' : '') : '';
    });
  }
}
