// A canvas drawn at the display's pixel density: CSS size w x h, backing store w*dpr x h*dpr.
// Returns the device pixel ratio, so a caller drawing in CSS pixels can scale its context by it.
export function sizeCanvas(canvas, w, h) {
  const dpr = window.devicePixelRatio || 1;
  canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
  canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
  return dpr;
}
