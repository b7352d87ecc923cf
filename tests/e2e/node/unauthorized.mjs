// A request with a wrong bearer token must fail with 401 Unauthorized.
//
//   node unauthorized.mjs KUBECONFIG
//
// Prints "<code> <reason>" of the error (or "no error") and exits 0; exits 1 on anything else.
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const user = kc.getCurrentUser();
if (!user) {
  console.log('FAIL: the kubeconfig has no current user');
  process.exit(1);
}
// Same cluster and CA, wrong token.
kc.users = kc.users.map((u) => (u.name === user.name ? { ...u, token: 'wrong' } : u));
try {
  await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
  console.log('no error');
} catch (e) {
  if (!(e instanceof k8s.ApiException)) {
    console.log(`FAIL: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  }
  let body = e.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      body = {};
    }
  }
  // The generated client keeps no body for a 401; its message then says "Message: Unauthorized".
  const message = /Message: (\S+)/.exec(e.message);
  console.log(`${e.code} ${body && body.reason ? body.reason : message ? message[1] : '?'}`);
}
