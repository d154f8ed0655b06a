// Text cut with an ellipsis to fit `room` CSS pixels in a canvas context (never squeezed glyphs).
export function fitText(ctx, text, room) {
  if (room <= 0) return '';
  if (ctx.measureText(text).width <= room) return text;
  let t = text;
  while (t.length > 1 && ctx.measureText(t + '…').width > room) t = t.slice(0, -1);
  return t.length > 1 ? t + '…' : '';
}
