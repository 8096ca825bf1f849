import { demoCompanions, demoDeployment, demoPki } from './fixtures';
import { K8sObject } from './k8s-object';
import { schemaErrors } from './schema-errors';

describe('schemaErrors', () => {
  it('accepts valid objects', () => {
    expect([demoDeployment(), ...demoCompanions()].flatMap(schemaErrors)).toEqual([]);
  });

  it('refuses a Deployment with a field of the wrong type, naming the field', () => {
    const broken = demoDeployment();
    (broken.spec as { template: { spec: Record<string, unknown> } }).template.spec.terminationGracePeriodSeconds = '30';
    expect(schemaErrors(broken)).toEqual(['Deployment/demo: data/spec/template/spec/terminationGracePeriodSeconds must be integer']);
  });

  it('refuses a Deployment without its required selector', () => {
    const broken = demoDeployment();
    delete (broken.spec as Record<string, unknown>).selector;
    expect(schemaErrors(broken)).toEqual(['Deployment/demo: data/spec must have required property selector']);
  });

  it('checks cert-manager Issuers and Certificates, and NetworkPolicies, against their schemas', () => {
    const policy: K8sObject = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'deny' },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    };
    expect([...demoPki(), policy].flatMap(schemaErrors)).toEqual([]);
    const certificate = demoCompanions()[3];
    (certificate.spec as Record<string, unknown>).privateKey = { algorithm: 'DSA' };
    expect(schemaErrors(certificate)).toEqual([
      expect.stringMatching(/^Certificate\/demo: data\/spec\/privateKey\/algorithm must be equal to one of the allowed values/),
    ]);
    expect(schemaErrors({ ...policy, spec: { policyTypes: ['Ingress'] } })).toEqual([
      'NetworkPolicy/deny: data/spec must have required property podSelector',
    ]);
  });

  it('refuses a kind or version it has no schema for, rather than passing it unchecked', () => {
    const pdb = { ...demoCompanions()[2], apiVersion: 'policy/v1beta1' };
    expect(schemaErrors(pdb)).toEqual(['PodDisruptionBudget/demo: no schema for policy/v1beta1 PodDisruptionBudget']);
  });
});
