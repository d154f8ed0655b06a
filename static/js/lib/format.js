// Number formatting for labels and tooltips.

export function cycles(c) {
  c = Math.round(c);
  if (Math.abs(c) < 1e4) return String(c);
  if (Math.abs(c) < 1e6) return (c / 1e3).toFixed(c % 1000 === 0 ? 0 : 1) + 'k';
  if (Math.abs(c) < 1e9) return (c / 1e6).toFixed(2).replace(/\.?0+$/, '') + 'M';
  return (c / 1e9).toFixed(2).replace(/\.?0+$/, '') + 'G';
}

export function exact(c) { return Math.round(c).toLocaleString('en-US'); }

export function num(x, digits = 3) {
  if (x === null || x === undefined || Number.isNaN(x)) return '–';
  if (Math.abs(x) >= 1e6) return (x / 1e6).toFixed(2) + 'M';
  if (Math.abs(x) >= 1e3) return (x / 1e3).toFixed(1) + 'k';
  return Number(x.toPrecision(digits)).toString();
}

export function pct(x) {
  return (x === null || Number.isNaN(x)) ? '–' : (100 * x).toFixed(1) + '%';
}

// "nice" tick step for an axis spanning `span` with about `n` ticks
export function tickStep(span, n = 8) {
  const raw = span / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

export function hex(n, width = 0) { return '0x' + n.toString(16).padStart(width, '0'); }

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[ch]));
}
