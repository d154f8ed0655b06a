// The PTX source of the run's kernel with, per line, the warp instructions issued there and the stall
// cycles charged to it (issue cycles are not stalls: they are the "issued" column), as a number and a bar
// split by reason (colours as everywhere; click a colour for its meaning). Sort by stall cycles or keep
// source order; jump to the hottest line. Branch lines say where they go. When a second run is compared
// and ran the same source, its issued and stall columns stand beside A's. Lines where warps of the
// chosen SM are at the cursor get a marker. A click selects a line: its issues are highlighted on the
// timeline.
import { STATE_COLOURS } from '../lib/colours.js';
import { escapeHtml, num, exact } from '../lib/format.js';
import { lineStats } from '../lib/ptx-stats.js';
import { definition } from '../lib/glossary.js';

// what a branch does, in words (PTX ISA: bra, @p bra, ret, exit, bar.sync)
function explain(text, labels) {
  const t = text.trim();
  let m = /^(@!?%\w+)\s+bra(?:\.uni)?\s+([\w$.]+)/.exec(t);
  if (m) return `conditional branch: lanes where ${m[1].slice(1)} holds jump to ${m[2]}${labels.has(m[2]) ? ` (line ${labels.get(m[2])})` : ''}; if the warp's lanes disagree it diverges and runs both paths, masked, until they reconverge`;
  m = /^bra(\.uni)?\s+([\w$.]+)/.exec(t);
  if (m) return `jump to ${m[2]}${labels.has(m[2]) ? ` (line ${labels.get(m[2])})` : ''}${m[1] ? ' (uniform: no divergence)' : ''}`;
  if (/^ret\b|^exit\b/.test(t)) return 'the warp ends here; it drains its outstanding stores, then frees its slot';
  if (/^bar(\.sync)?\b|^barrier\b/.test(t)) return 'CTA barrier: waits until every warp of the CTA arrives (stall reason: barrier)';
  return '';
}

// the line that wrote a register this line reads, if it is a load (within 64 lines above): a scoreboard
// stall is charged to the instruction that waits for the data, not to the load that fetches it
const LOAD = /^\s*(?:@!?%\w+\s+)?(ld|tex|tld4|ldu|shfl|atom|ex2|rcp|sqrt|rsqrt|sin|cos|lg2)\.[\w.]*\s+(?:\{([^}]*)\}|(%\w+))/;
function producer(src, ln) {
  const t = (src[ln - 1] || '').replace(/\/\/.*$/, '');
  const ops = t.split(/\s+/).slice(1).join(' ');
  for (let l = ln - 1; l >= Math.max(1, ln - 64); l--) {
    const m = LOAD.exec(src[l - 1] || '');
    if (!m) continue;
    const dests = (m[2] || m[3]).split(',').map((x) => x.trim()).filter(Boolean);
    const hit = dests.find((d) => new RegExp(`${d}(?![\\w])`).test(ops));
    if (hit) return { line: l, reg: hit, op: m[1] };
  }
  return null;
}

export class PtxView {
  constructor(root, state) {
    this.root = root; this.state = state; this.kernel = 0; this.sort = 'source'; this.metaB = null;
    root.addEventListener('click', (e) => {
      if (e.target.closest('[data-gloss]')) return;
      const act = e.target.closest('[data-act]');
      if (act) {
        if (act.dataset.act === 'sort') { this.sort = act.value; this.render(); }
        if (act.dataset.act === 'hottest') this.jumpHottest();
        return;
      }
      const tr = e.target.closest('tr[data-line]');
      if (!tr) return;
      const line = Number(tr.dataset.line);
      this.state.set({ line: this.state.get().line === line ? null : line, pcs: null });
      this.state.set({ pcs: this.pcsOf(this.state.get().line) });
    });
    root.addEventListener('change', (e) => { if (e.target.dataset.act === 'sort') { this.sort = e.target.value; this.render(); } });
    state.subscribe((s, changed) => { if (changed.includes('line')) this._select(true); });
  }

  pcsOf(line) {
    if (line === null || line === undefined || !this.k) return [];
    const out = [];
    (this.k.pc_line || []).forEach((l, pc) => { if (l === line) out.push(pc); });
    return out;
  }

  setRun(meta) {
    const first = !this.meta || this.meta.run.id !== meta.run.id;
    this.meta = meta; this.render();
    if (first) requestAnimationFrame(() => this._select(true));      // a line from the URL: show it
  }
  setCompare(metaB) { this.metaB = metaB; this.render(); }

  hottest() {
    let best = null, max = -1;
    for (const [l, t] of this.stats.total) if (t > max) { max = t; best = l; }
    return best;
  }

  jumpHottest() {
    const l = this.hottest();
    if (l === null) return;
    this.state.set({ line: l, pcs: this.pcsOf(l) });
    this._select(true);                              // scroll even when it was already the chosen line
  }

  render() {
    const meta = this.meta;
    if (!meta) return;
    this.stats = lineStats(meta, this.kernel);
    const k = this.k = this.stats.k;
    if (!k) { this.root.innerHTML = '<p class="muted">No PTX recorded for this run.</p>'; return; }
    const { issued, stalls, total } = this.stats;
    const sb = this.metaB ? lineStats(this.metaB, this.kernel) : null;
    const withB = sb && sb.k && sb.k.source === k.source;
    const src = (k.source || '').split('\n');
    const pcLine = k.pc_line || [];
    const labels = new Map();
    src.forEach((t, i) => { const m = /^\s*([\w$.]+):/.exec(t); if (m) labels.set(m[1], i + 1); });
    const pcs0 = Number.isInteger(k.entry_pc) ? k.entry_pc : 0;              // this kernel's PCs only
    const pcs1 = Number.isInteger(k.end_pc) ? k.end_pc : pcLine.length;
    const used = pcLine.slice(pcs0, pcs1).filter((x) => x > 0);
    const lo = used.length ? Math.max(1, Math.min(...used) - 3) : 1;
    const hi = used.length ? Math.min(src.length, Math.max(...used) + 2) : src.length;
    let maxStall = 1;
    for (const t of total.values()) maxStall = Math.max(maxStall, t);
    if (withB) for (const t of sb.total.values()) maxStall = Math.max(maxStall, t);
    const bar = (v) => {
      if (!v) return '';
      const parts = [];
      v.forEach((c, s) => {
        if (c > 0) parts.push(`<span data-gloss="${meta.states[s]}" style="width:${(100 * c / maxStall).toFixed(2)}%;background:${STATE_COLOURS[meta.states[s]]}" title="${meta.states[s]}: ${exact(c)} cycles — ${escapeHtml(definition(meta.states[s]))}"></span>`);
      });
      return `<div class="stallbar">${parts.join('')}</div>`;
    };
    const top = (v) => {                                       // the largest reason, in words next to the number
      if (!v) return '';
      let b = -1, bi = -1;
      v.forEach((c, s) => { if (c > b) { b = c; bi = s; } });
      return b > 0 ? meta.states[bi] : '';
    };
    let lines = [];
    for (let ln = lo; ln <= hi; ln++) lines.push(ln);
    if (this.sort === 'stalls') lines = lines.filter((l) => issued.has(l)).sort((a, b) => (total.get(b) || 0) - (total.get(a) || 0));
    const rows = lines.map((ln) => {
      const iss = issued.get(ln), v = stalls.get(ln), t = total.get(ln) || 0;
      let note = explain(src[ln - 1] || '', labels);
      const why = t ? top(v) : '';
      if (!note && (why === 'long_scoreboard' || why === 'short_scoreboard')) {
        const p = producer(src, ln);
        if (p) note = `waits for ${p.reg} from the ${p.op} on line ${p.line}: the stall is charged here, where the data is used`;
      }
      const bcols = withB ? `<td class="num b">${sb.issued.has(ln) ? num(sb.issued.get(ln)) : ''}</td><td class="num b">${sb.total.get(ln) ? exact(sb.total.get(ln)) : ''}</td><td class="bar b">${bar(sb.stalls.get(ln))}</td>` : '';
      return `<tr data-line="${ln}" class="${iss ? 'hot' : ''}"><td class="ln">${ln}</td><td class="mark"></td>
        <td class="num">${iss ? num(iss) : ''}</td><td class="num stall">${t ? exact(t) : ''}</td><td class="why small">${t ? top(v) : ''}</td>
        <td class="bar">${bar(v)}</td>${bcols}<td class="code">${escapeHtml(src[ln - 1] || '')}${note ? `<div class="note">↳ ${escapeHtml(note)}</div>` : ''}</td></tr>`;
    });
    const hot = this.hottest();
    this.root.innerHTML = `<div class="ptx-head"><span class="muted">Kernel <b>${escapeHtml(k.name)}</b>: warp instructions issued per line; stall cycles charged to it
      (warp-cycles spent waiting to issue it, by reason; issue cycles excluded).</span>
      <label>order <select data-act="sort" data-testid="ptx-sort"><option value="source"${this.sort === 'source' ? ' selected' : ''}>source</option>
        <option value="stalls"${this.sort === 'stalls' ? ' selected' : ''}>stall cycles, most first</option></select></label>
      <button data-act="hottest" data-testid="ptx-hottest"${hot === null ? ' disabled' : ''}>jump to hottest line${hot !== null ? ` (${hot})` : ''}</button></div>
      <table class="ptx"><thead><tr><th>line</th><th></th><th class="num">issued${withB ? ' A' : ''}</th><th class="num">stall cycles${withB ? ' A' : ''}</th><th>top reason</th><th>stalls by reason</th>
      ${withB ? '<th class="num b">issued B</th><th class="num b">stall cycles B</th><th class="b">B by reason</th>' : ''}<th>PTX</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
    this._select(false);
  }

  _select(scroll) {
    const line = this.state.get().line;
    this.root.querySelectorAll('tr[data-line]').forEach((tr) => tr.classList.toggle('selected', Number(tr.dataset.line) === line));
    const tr = this.root.querySelector('tr.selected');
    if (scroll && tr) tr.scrollIntoView({ block: 'center' });
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
