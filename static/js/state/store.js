// A tiny atom store: get(), set(patch) (shallow merge), subscribe(fn) -> unsubscribe.
// Subscribers run synchronously; views only mark themselves dirty and draw in the rAF scheduler.
export function atom(initial) {
  let value = initial;
  const subs = new Set();
  return {
    get: () => value,
    set(patch) {
      const next = { ...value, ...patch };
      const changed = Object.keys(patch).filter((k) => value[k] !== next[k]);
      if (!changed.length) return;
      value = next;
      for (const f of subs) f(value, changed);
    },
    subscribe(f) { subs.add(f); return () => subs.delete(f); },
  };
}
