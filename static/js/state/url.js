// The whole view state lives in the URL query, so a view can be shared and reproduced:
//   ?run=ID&a=CYCLE&b=CYCLE&cursor=CYCLE&sm=N&cmp=ID&line=N&tab=summary|warps|memory|ptx|glossary|diff&gloss=STATE&speed=N&pin=SLOT&ra=CYCLE&rb=CYCLE
const INT_KEYS = ['a', 'b', 'cursor', 'sm', 'line', 'speed', 'pin', 'ra', 'rb'];
const STR_KEYS = ['run', 'cmp', 'tab', 'gloss'];

export function readUrl(loc = window.location) {
  const q = new URLSearchParams(loc.search);
  const out = {};
  for (const k of STR_KEYS) if (q.has(k)) out[k] = q.get(k);
  for (const k of INT_KEYS) {
    if (q.has(k) && q.get(k) !== '' && Number.isFinite(Number(q.get(k)))) out[k] = Math.round(Number(q.get(k)));
  }
  return out;
}

let timer = null;
// omitWindow: leave a/b out (a live run's view that follows the run's growing end)
export function writeUrl(state, omitWindow = false) {
  clearTimeout(timer);
  timer = setTimeout(() => {
    const q = new URLSearchParams();
    for (const k of STR_KEYS) if (state[k]) q.set(k, state[k]);
    for (const k of INT_KEYS) {
      if (omitWindow && (k === 'a' || k === 'b')) continue;
      if (state[k] !== undefined && state[k] !== null) q.set(k, String(Math.round(state[k])));
    }
    const url = `${window.location.pathname}?${q.toString()}`;
    if (url !== window.location.pathname + window.location.search) history.replaceState(null, '', url);
  }, 120);
}
