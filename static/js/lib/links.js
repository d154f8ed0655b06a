// Where a run opens: a whole-model (workload) run on the workload page, any other in the explorer; `extra`
// adds URL state (e.g. '&tab=summary').
export function runHref(id, workload, extra = '') {
  return `${workload ? '/workload' : '/'}?run=${encodeURIComponent(id)}${extra}`;
}
