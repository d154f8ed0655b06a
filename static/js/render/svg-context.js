// A recording 2-D context with the subset of CanvasRenderingContext2D our tracks use; toString() gives
// an SVG document. Tracks draw through the same code for the screen, PNG export (a real canvas) and
// SVG export (this), and check `ctx.vector` to draw rectangles instead of bitmaps.
import { escapeHtml } from '../lib/format.js';

const r2 = (x) => Math.round(x * 100) / 100;

export class SvgContext {
  constructor(width, height) {
    this.width = width; this.height = height; this.vector = true;
    this.parts = [];
    this.stack = [];
    this.fillStyle = '#000'; this.strokeStyle = '#000'; this.lineWidth = 1; this.globalAlpha = 1;
    this.font = '11px sans-serif'; this.textAlign = 'left'; this.textBaseline = 'alphabetic';
    this.tx = 0; this.ty = 0; this.path = []; this.dash = [];
    this.clip = null;
  }
  save() { this.stack.push({ ...this._state() }); }
  restore() { Object.assign(this, this.stack.pop() || {}); }
  _state() {
    return { fillStyle: this.fillStyle, strokeStyle: this.strokeStyle, lineWidth: this.lineWidth,
      globalAlpha: this.globalAlpha, font: this.font, textAlign: this.textAlign, textBaseline: this.textBaseline,
      tx: this.tx, ty: this.ty, dash: this.dash, clip: this.clip };
  }
  translate(x, y) { this.tx += x; this.ty += y; }
  setLineDash(d) { this.dash = d; }
  clearRect() {}
  rectClip(x, y, w, h) { this.clip = [x + this.tx, y + this.ty, w, h]; }
  _alpha() { return this.globalAlpha < 1 ? ` opacity="${r2(this.globalAlpha)}"` : ''; }
  _clipAttr() { return this.clip ? ` clip-path="url(#c${this._clipId()})"` : ''; }
  _clipId() {
    const key = this.clip.join(',');
    this.clips = this.clips || new Map();
    if (!this.clips.has(key)) this.clips.set(key, this.clips.size);
    return this.clips.get(key);
  }
  fillRect(x, y, w, h) {
    if (w <= 0 || h <= 0 || this.fillStyle === 'transparent') return;
    this.parts.push(`<rect x="${r2(x + this.tx)}" y="${r2(y + this.ty)}" width="${r2(w)}" height="${r2(h)}" fill="${this.fillStyle}"${this._alpha()}${this._clipAttr()}/>`);
  }
  strokeRect(x, y, w, h) {
    this.parts.push(`<rect x="${r2(x + this.tx)}" y="${r2(y + this.ty)}" width="${r2(w)}" height="${r2(h)}" fill="none" stroke="${this.strokeStyle}" stroke-width="${this.lineWidth}"${this._alpha()}${this._clipAttr()}/>`);
  }
  beginPath() { this.path = []; }
  moveTo(x, y) { this.path.push(`M${r2(x + this.tx)} ${r2(y + this.ty)}`); }
  lineTo(x, y) { this.path.push(`L${r2(x + this.tx)} ${r2(y + this.ty)}`); }
  rect(x, y, w, h) { this.moveTo(x, y); this.lineTo(x + w, y); this.lineTo(x + w, y + h); this.lineTo(x, y + h); this.closePath(); }
  closePath() { this.path.push('Z'); }
  fill() {
    if (this.path.length) this.parts.push(`<path d="${this.path.join('')}" fill="${this.fillStyle}"${this._alpha()}${this._clipAttr()}/>`);
  }
  stroke() {
    if (!this.path.length) return;
    const dash = this.dash.length ? ` stroke-dasharray="${this.dash.join(' ')}"` : '';
    this.parts.push(`<path d="${this.path.join('')}" fill="none" stroke="${this.strokeStyle}" stroke-width="${this.lineWidth}"${dash}${this._alpha()}${this._clipAttr()}/>`);
  }
  fillText(text, x, y) {
    const anchor = { left: 'start', start: 'start', center: 'middle', right: 'end', end: 'end' }[this.textAlign] || 'start';
    const base = { top: 'hanging', middle: 'middle', bottom: 'text-after-edge', alphabetic: 'alphabetic' }[this.textBaseline] || 'alphabetic';
    const m = /(\d+(?:\.\d+)?)px\s+(.*)$/.exec(this.font) || [null, '11', 'sans-serif'];
    const weight = /bold|600|700/.test(this.font) ? ' font-weight="bold"' : '';
    this.parts.push(`<text x="${r2(x + this.tx)}" y="${r2(y + this.ty)}" font-size="${m[1]}" font-family="${escapeHtml(m[2])}"${weight} text-anchor="${anchor}" dominant-baseline="${base}" fill="${this.fillStyle}"${this._alpha()}>${escapeHtml(text)}</text>`);
  }
  measureText(text) { const m = /(\d+(?:\.\d+)?)px/.exec(this.font); return { width: String(text).length * (m ? +m[1] : 11) * 0.55 }; }
  toString() {
    const defs = this.clips ? [...this.clips.entries()].map(([k, i]) => {
      const [x, y, w, h] = k.split(',');
      return `<clipPath id="c${i}"><rect x="${x}" y="${y}" width="${w}" height="${h}"/></clipPath>`;
    }).join('') : '';
    return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${this.width}" height="${this.height}" viewBox="0 0 ${this.width} ${this.height}">` +
      `<defs>${defs}</defs><rect width="100%" height="100%" fill="#ffffff"/>${this.parts.join('\n')}</svg>\n`;
  }
}

// clip to a rectangle on either kind of context
export function clipRect(ctx, x, y, w, h) {
  if (ctx.vector) { ctx.rectClip(x, y, w, h); return; }
  ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip();
}
