// The socket channel: request(kind, payload, slot) -> Promise of a decoded frame (or null when a newer
// request for the same slot superseded it). Every received frame is acknowledged after it is decoded
// and handled, which is what lets the server send more (its flow-control window, webapp/stream.py).
import { decodeFrame } from './wire.js';

export class Channel {
  constructor() {
    this.sock = globalThis.io({ transports: ['websocket'] });
    this.nextId = 1;
    this.waiting = new Map();        // id -> {resolve, reject, slot}
    this.latest = new Map();         // slot -> id
    this.onProgress = null;
    this.stats = { frames: 0, bytes: 0 };
    this.sock.on('frame', (buf) => this._frame(buf));
    this.sock.on('connect', () => { if (this.watching) this.sock.emit('watch', { run: this.watching }); });
  }

  request(kind, payload, slot = kind) {
    const id = this.nextId++;
    const prev = this.latest.get(slot);
    if (prev !== undefined && this.waiting.has(prev)) { this.waiting.get(prev).resolve(null); this.waiting.delete(prev); }
    this.latest.set(slot, id);
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, slot });
      this.sock.emit(kind, { ...payload, id, slot });
    });
  }

  watch(run) { this.watching = run; this.sock.emit('watch', { run }); }

  _frame(buf) {
    let f;
    try { f = decodeFrame(buf); } catch (e) { console.error(e); return; }
    this.stats.frames++; this.stats.bytes += buf.byteLength || 0;
    try {
      if (f.kind === 'progress') { if (this.onProgress) this.onProgress(f); }
      else if (f.id !== null && f.id !== undefined && this.waiting.has(f.id)) {
        const w = this.waiting.get(f.id); this.waiting.delete(f.id);
        if (f.kind === 'error') w.reject(new Error(f.message)); else w.resolve(f);
      }
    } finally {
      this.sock.emit('ack', { seq: f.seq });
    }
  }
}
