// @kubernetes/client-node (pinned in package.json) against a running kubecpp API server.
//
//   node client_node_e2e.mjs KUBECONFIG
//
// Each step prints one deterministic line (resource versions and timestamps are never printed) and
// the script ends with "PASS"; any failure prints "FAIL: <step>: <reason>" and exits 1.
// tests/e2e/node_client_test.cpp starts the embedded server, runs this script and compares the
// output line by line.
import * as k8s from '@kubernetes/client-node';

const DEADLINE_MS = 30000;  // generous: every wait below is for a condition, never a fixed sleep

let step = 'setup';
const out = (line) => console.log(line);
const fail = (reason) => {
  throw new Error(reason);
};
const expectEq = (what, got, want) => {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g !== w) fail(`${what}: got ${g}, want ${w}`);
};

// The HTTP status and the Status.reason of an ApiException (body is parsed JSON or a string).
const statusOf = (e) => {
  if (!(e instanceof k8s.ApiException)) throw e;
  let body = e.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      body = {};
    }
  }
  return `${e.code} ${body && body.reason ? body.reason : '?'}`;
};
// Runs `fn` and returns "<code> <reason>" of the ApiException it must throw.
const expectApiError = async (fn) => {
  try {
    await fn();
  } catch (e) {
    return statusOf(e);
  }
  fail('the call succeeded but an error was expected');
};
// Polls `probe` (an async function returning a truthy value when done) until the deadline.
const waitFor = async (what, probe) => {
  const end = Date.now() + DEADLINE_MS;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
// Resolves when `cond()` holds, re-checked whenever `kick` is called (event callbacks call it).
const condition = (what, cond) => {
  let resolve;
  let reject;
  const p = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), DEADLINE_MS);
  const kick = () => {
    if (cond()) {
      clearTimeout(timer);
      resolve();
    }
  };
  return { promise: p, kick };
};

const cm = (name, data, labels) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

async function configMapCrud(core, ns) {
  step = 'configmap crud';
  const created = await core.createNamespacedConfigMap({ namespace: ns, body: cm('node-cm', { k: 'v1' }) });
  out(`created: ${created.metadata.name} ${created.data.k} uid=${created.metadata.uid ? 'set' : 'missing'}`);
  out(`create again: ${await expectApiError(() =>
    core.createNamespacedConfigMap({ namespace: ns, body: cm('node-cm', { k: 'v1' }) }))}`);
  const read = await core.readNamespacedConfigMap({ name: 'node-cm', namespace: ns });
  expectEq('read resourceVersion', read.metadata.resourceVersion, created.metadata.resourceVersion);
  out(`read: ${read.metadata.name} ${read.data.k}`);

  read.data.k = 'v2';
  const replaced = await core.replaceNamespacedConfigMap({ name: 'node-cm', namespace: ns, body: read });
  if (replaced.metadata.resourceVersion === created.metadata.resourceVersion) fail('replace kept the resourceVersion');
  out(`replaced: ${replaced.data.k}`);

  // A stale update: the object read before the replace still carries the old resourceVersion.
  const stale = { ...read, data: { k: 'stale' } };
  stale.metadata = { ...read.metadata, resourceVersion: created.metadata.resourceVersion };
  out(`stale update: ${await expectApiError(() =>
    core.replaceNamespacedConfigMap({ name: 'node-cm', namespace: ns, body: stale }))}`);
  const after = await core.readNamespacedConfigMap({ name: 'node-cm', namespace: ns });
  out(`after stale update: ${after.data.k}`);

  // A JSON merge patch (client-node picks the Content-Type from the patch strategy).
  const patched = await core.patchNamespacedConfigMap(
    { name: 'node-cm', namespace: ns, body: { data: { extra: 'x' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  out(`patched: ${patched.data.k} ${patched.data.extra}`);

  await core.deleteNamespacedConfigMap({ name: 'node-cm', namespace: ns });
  out(`read after delete: ${await expectApiError(() => core.readNamespacedConfigMap({ name: 'node-cm', namespace: ns }))}`);
}

async function pagination(core, ns) {
  step = 'list with limit/continue';
  const names = ['page-a', 'page-b', 'page-c', 'page-d', 'page-e'];
  for (const n of names) {
    await core.createNamespacedConfigMap({ namespace: ns, body: cm(n, { n }, { e2e: 'paging' }) });
  }
  const seen = [];
  const pageSizes = [];
  let cont;
  let listRv;
  do {
    const page = await core.listNamespacedConfigMap({
      namespace: ns, labelSelector: 'e2e=paging', limit: 2, _continue: cont,
    });
    pageSizes.push(page.items.length);
    seen.push(...page.items.map((i) => i.metadata.name));
    // Every page of one list is a snapshot at the first page's resourceVersion.
    if (listRv === undefined) listRv = page.metadata.resourceVersion;
    expectEq('page resourceVersion', page.metadata.resourceVersion, listRv);
    cont = page.metadata._continue;
    if (pageSizes.length > 10) fail('too many pages');
  } while (cont);
  expectEq('paged names', seen, names);
  out(`pages: ${pageSizes.join(',')} -> ${seen.length} items`);
  const all = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'e2e=paging' });
  out(`unpaged: ${all.items.length} items`);
}

async function watchFromResourceVersion(kc, core, ns) {
  step = 'watch from resourceVersion';
  const first = await core.createNamespacedConfigMap({ namespace: ns, body: cm('watch-a', { v: '1' }) });
  const from = first.metadata.resourceVersion;
  // Changes after `from`: the watch must replay exactly these, in order.
  const a = await core.readNamespacedConfigMap({ name: 'watch-a', namespace: ns });
  a.data.v = '2';
  await core.replaceNamespacedConfigMap({ name: 'watch-a', namespace: ns, body: a });
  await core.createNamespacedConfigMap({ namespace: ns, body: cm('watch-b', { v: '1' }) });
  await core.deleteNamespacedConfigMap({ name: 'watch-a', namespace: ns });

  const events = [];
  let watchErr = null;
  const done = condition('3 watch events', () => events.length >= 3 || watchErr !== null);
  const w = new k8s.Watch(kc);
  const req = await w.watch(`/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: from },
    (type, obj) => {
      events.push(`${type}/${obj.metadata.name}/${obj.data ? obj.data.v : ''}`);
      done.kick();
    },
    (err) => {
      if (err && err.name !== 'AbortError') watchErr = err;
      done.kick();
    });
  await done.promise;
  req.abort();
  if (watchErr) fail(`watch ended with ${watchErr}`);
  out(`watch from rv: ${events.join(' ')}`);
}

async function customResource(kc, ns) {
  step = 'custom resource';
  const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.e2e.kubecpp.io' },
    spec: {
      group: 'e2e.kubecpp.io',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      }],
    },
  };
  await ext.createCustomResourceDefinition({ body: crd });
  await waitFor('the CRD to be Established', async () => {
    const got = await ext.readCustomResourceDefinition({ name: 'widgets.e2e.kubecpp.io' });
    const conds = (got.status && got.status.conditions) || [];
    return conds.some((c) => c.type === 'Established' && c.status === 'True');
  });
  out('crd: widgets.e2e.kubecpp.io Established');

  const g = { group: 'e2e.kubecpp.io', version: 'v1', namespace: ns, plural: 'widgets' };
  // The new resource may take a moment to be served after Established; retry 404s until then.
  const created = await waitFor('the widgets resource to be served', async () => {
    try {
      return await custom.createNamespacedCustomObject({
        ...g, body: { apiVersion: 'e2e.kubecpp.io/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3, color: 'red' } },
      });
    } catch (e) {
      if (e instanceof k8s.ApiException && e.code === 404) return null;
      throw e;
    }
  });
  out(`widget created: ${created.metadata.name} size=${created.spec.size} generation=${created.metadata.generation}`);

  const read = await custom.getNamespacedCustomObject({ ...g, name: 'w1' });
  read.spec.size = 5;
  const replaced = await custom.replaceNamespacedCustomObject({ ...g, name: 'w1', body: read });
  out(`widget replaced: size=${replaced.spec.size} generation=${replaced.metadata.generation}`);
  // The old object is stale now.
  out(`widget stale replace: ${await expectApiError(() =>
    custom.replaceNamespacedCustomObject({ ...g, name: 'w1', body: { ...read, spec: { size: 9 } } }))}`);

  await custom.createNamespacedCustomObject({
    ...g, body: { apiVersion: 'e2e.kubecpp.io/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 1 } },
  });
  const list = await custom.listNamespacedCustomObject(g);
  out(`widgets: ${list.kind} ${list.items.map((i) => i.metadata.name).join(',')}`);

  await custom.deleteNamespacedCustomObject({ ...g, name: 'w1' });
  out(`widget after delete: ${await expectApiError(() => custom.getNamespacedCustomObject({ ...g, name: 'w1' }))}`);
}

async function informer(kc, core, ns) {
  step = 'informer';
  // One object exists before the informer starts: the initial list must deliver it as an add.
  // Only this step's objects (label e2e=informer) are informed on: the namespace holds others.
  const labels = { e2e: 'informer' };
  await core.createNamespacedConfigMap({ namespace: ns, body: cm('inf-0', { v: '0' }, labels) });

  const inf = k8s.makeInformer(kc, `/api/v1/namespaces/${ns}/configmaps`,
    () => core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'e2e=informer' }), 'e2e=informer');
  const events = [];
  const errors = [];
  const expected = [
    'add/inf-0/0', 'add/inf-1/1', 'update/inf-1/2', 'add/inf-2/1', 'delete/inf-0/0', 'update/inf-2/2', 'delete/inf-1/2',
  ];
  const done = condition(`${expected.length} informer events`, () => events.length >= expected.length || errors.length > 0);
  const record = (verb) => (obj) => {
    events.push(`${verb}/${obj.metadata.name}/${obj.data ? obj.data.v : ''}`);
    done.kick();
  };
  inf.on('add', record('add'));
  inf.on('update', record('update'));
  inf.on('delete', record('delete'));
  let stopping = false;  // stop() aborts the watch, which reports an AbortError
  inf.on('error', (err) => {
    if (stopping) return;
    errors.push(String(err));
    done.kick();
  });
  await inf.start();
  await waitFor('the informer to sync', async () => inf.list().length === 1);
  out(`informer synced: ${inf.list().map((o) => o.metadata.name).join(',')}`);

  // The scripted sequence: every write is awaited, so the watch delivers them in this order.
  const update = async (name, v) => {
    const o = await core.readNamespacedConfigMap({ name, namespace: ns });
    o.data.v = v;
    await core.replaceNamespacedConfigMap({ name, namespace: ns, body: o });
  };
  await core.createNamespacedConfigMap({ namespace: ns, body: cm('inf-1', { v: '1' }, labels) });
  await update('inf-1', '2');
  await core.createNamespacedConfigMap({ namespace: ns, body: cm('inf-2', { v: '1' }, labels) });
  await core.deleteNamespacedConfigMap({ name: 'inf-0', namespace: ns });
  await update('inf-2', '2');
  await core.deleteNamespacedConfigMap({ name: 'inf-1', namespace: ns });

  await done.promise;
  stopping = true;
  await inf.stop();
  if (errors.length > 0) fail(`informer error: ${errors.join('; ')}`);
  expectEq('informer events', events, expected);
  out(`informer events: ${events.join(' ')}`);
  const cached = inf.list().map((o) => `${o.metadata.name}/${o.data.v}`);
  expectEq('informer cache', cached, ['inf-2/2']);
  out(`informer cache: ${cached.join(',')}`);
}

async function main() {
  const kubeconfig = process.argv[2];
  if (!kubeconfig) {
    console.error('usage: node client_node_e2e.mjs KUBECONFIG');
    process.exit(2);
  }
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);

  step = 'namespaces';
  const nsList = await core.listNamespace();
  out(`namespaces: ${nsList.items.map((n) => n.metadata.name).sort().join(' ')}`);
  const ns = 'node-e2e';
  await core.createNamespace({ body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  out(`namespace created: ${ns}`);

  await configMapCrud(core, ns);
  await pagination(core, ns);
  await watchFromResourceVersion(kc, core, ns);
  await customResource(kc, ns);
  await informer(kc, core, ns);
  out('PASS');
}

main().then(
  () => process.exit(0),
  (e) => {
    console.log(`FAIL: ${step}: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  });
