import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kustomizeBuild, splitImage } from './kustomize-build';

const HEAD = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n';
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: demo
          image: chat-gateway/demo:latest
`;
const CONFIG = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo-config\ndata:\n  LOG_LEVEL: info\n  KEEP: "yes"\n';

describe('kustomizeBuild', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kustomize-'));
    write('base/kustomization.yaml', `${HEAD}resources:\n  - deployment.yaml\n  - config.yaml\n`);
    write('base/deployment.yaml', DEPLOYMENT);
    write('base/config.yaml', `${CONFIG}---\n`);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('renders bases, then patches, the namespace and the images of the overlay', () => {
    write('ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: anything\n');
    write(
      'kustomization.yaml',
      `${HEAD}namespace: prod
resources: [ns.yaml, base]
images:
  - name: chat-gateway/demo
    newName: registry.example.com/demo
    newTag: "1.2.3"
patches:
  - patch: |-
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: demo-config}
      data: {LOG_LEVEL: debug, KEEP: null, ADDED: x}
`,
    );
    const [ns, deployment, config] = kustomizeBuild(root);
    expect(ns.metadata).toEqual({ name: 'prod' });
    expect(deployment.metadata.namespace).toBe('prod');
    expect(JSON.stringify(deployment.spec)).toContain('"image":"registry.example.com/demo:1.2.3"');
    expect(config.data).toEqual({ LOG_LEVEL: 'debug', ADDED: 'x' });
  });

  it('replaces a list of scalars of a custom resource, as kustomize does for kinds it has no schema of', () => {
    write(
      'base/cert.yaml',
      'apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: demo\nspec:\n  secretName: demo-tls\n  dnsNames: [demo, demo.a.svc]\n',
    );
    write('base/kustomization.yaml', `${HEAD}resources:\n  - deployment.yaml\n  - cert.yaml\n`);
    write(
      'kustomization.yaml',
      `${HEAD}namespace: b
resources: [base]
patches:
  - patch: |-
      apiVersion: cert-manager.io/v1
      kind: Certificate
      metadata: {name: demo}
      spec: {dnsNames: [demo, demo.b.svc]}
`,
    );
    const cert = kustomizeBuild(root)[1];
    expect(cert.metadata.namespace).toBe('b');
    expect(cert.spec).toEqual({ secretName: 'demo-tls', dnsNames: ['demo', 'demo.b.svc'] });
  });

  it.each([
    ['a field it does not implement', `${HEAD}resources: [base]\nnamePrefix: x-\n`, /not supported by this renderer: namePrefix/],
    ['a resource defined twice', `${HEAD}resources: [base, base/config.yaml]\n`, /ConfigMap\/demo-config is defined twice/],
    [
      'a patch of a list',
      `${HEAD}resources: [base]\npatches:\n  - patch: |-\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: demo}\n      spec: {template: {spec: {containers: []}}}\n`,
      /lists \(containers\) are not supported/,
    ],
    [
      'a patch of a list of scalars in a built-in kind',
      `${HEAD}resources: [base]\npatches:\n  - patch: |-\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: demo, finalizers: [x]}\n`,
      /lists \(finalizers\) are not supported/,
    ],
    [
      'a patch that matches nothing',
      `${HEAD}resources: [base]\npatches:\n  - patch: |-\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: {name: other}\n`,
      /matches 0 objects/,
    ],
    [
      'an image entry that changes no container',
      `${HEAD}resources: [base]\nimages:\n  - name: chat-gateway/other\n    newTag: "1"\n`,
      /matches no container/,
    ],
    [
      'an unquoted numeric tag',
      `${HEAD}resources: [base]\nimages:\n  - name: chat-gateway/demo\n    newTag: 1.0\n`,
      /newTag must be a string/,
    ],
    ['a missing resource', `${HEAD}resources: [nowhere]\n`, /resource nowhere does not exist/],
  ])('refuses %s', (_what, kustomization, error) => {
    write('kustomization.yaml', kustomization);
    expect(() => kustomizeBuild(root)).toThrow(error);
  });
});

describe('splitImage', () => {
  it.each([
    ['chat-gateway/edge', 'chat-gateway/edge', ''],
    ['chat-gateway/edge:1.0', 'chat-gateway/edge', ':1.0'],
    ['registry:5000/team/edge', 'registry:5000/team/edge', ''],
    ['registry:5000/team/edge:1.0@sha256:abc', 'registry:5000/team/edge', ':1.0@sha256:abc'],
    ['edge@sha256:abc', 'edge', '@sha256:abc'],
  ])('%s', (image, name, suffix) => {
    expect(splitImage(image)).toEqual({ name, suffix });
  });
});
