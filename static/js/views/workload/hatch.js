// The fill of an opaque launch (an extern library kernel captured without PTX: not simulated, drawn with
// its measured time) wherever a workload page draws one: grey diagonal stripes.
let pattern = null;

export function hatch(ctx) {
  if (!pattern) {
    const c = document.createElement('canvas'); c.width = c.height = 8;
    const g = c.getContext('2d');
    g.fillStyle = '#e5e7eb'; g.fillRect(0, 0, 8, 8);
    g.strokeStyle = '#6b7280'; g.beginPath(); g.moveTo(0, 8); g.lineTo(8, 0); g.stroke();
    pattern = ctx.createPattern(c, 'repeat');
  }
  return pattern;
}

// the same stripes as CSS, for legends and table tags
export const HATCH_CSS = 'repeating-linear-gradient(135deg, #f3f4f6 0 4px, #c4c8cf 4px 5px)';
