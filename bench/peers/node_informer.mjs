// The @kubernetes/client-node side of the side-by-side bench (issue 10), driven by peer_loader.
// Uses the install in tests/e2e/node (client-node 1.4.0), resolved relative to this file.
// makeInformer on bench.example.com/v1 benchobjects (all namespaces) from $KUBECONFIG; prints
// {"phase":"synced","sync_ms","vmhwm_kb","items"} when start() has resolved (list done, watch
// open; time measured from just before the KubeConfig is loaded, after module loading), then
// counts 'update' notifications until $BENCH_M have arrived and prints
// {"phase":"done","events","first_to_last_ms","vmhwm_kb"} and exits (without stop(), whose
// aborted watch would be reported as an error).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../tests/e2e/node/package.json'));
const k8s = await import(require.resolve('@kubernetes/client-node'));

function vmhwmKb() {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : -1;
}

const m = Number(process.env.BENCH_M || 0);
const t0 = performance.now();
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const api = kc.makeApiClient(k8s.CustomObjectsApi);
const group = 'bench.example.com';
const version = 'v1';
const plural = 'benchobjects';
const inf = k8s.makeInformer(kc, `/apis/${group}/${version}/${plural}`,
  () => api.listClusterCustomObject({ group, version, plural }));
let updates = 0;
let first = 0;
let last = 0;
let finish = null;
const finished = new Promise((resolve) => { finish = resolve; });
inf.on('update', () => {
  const now = performance.now();
  if (updates === 0) first = now;
  last = now;
  updates += 1;
  if (updates >= m) finish();
});
inf.on('error', (err) => {
  process.stderr.write(`informer error: ${err}\n`);
  process.exit(1);
});
await inf.start();
const t1 = performance.now();
process.stdout.write(JSON.stringify({
  phase: 'synced', sync_ms: t1 - t0, vmhwm_kb: vmhwmKb(), items: inf.list().length,
}) + '\n');
if (m > 0) await finished;
process.stdout.write(JSON.stringify({
  phase: 'done', events: updates, first_to_last_ms: last - first, vmhwm_kb: vmhwmKb(),
}) + '\n');
process.exit(0);
