import { demoCompanions, demoDeployment, demoPki } from './fixtures';
import { unknownFieldErrors } from './unknown-field-errors';

describe('unknownFieldErrors', () => {
  it('names a misspelt field of one object and passes the valid ones', () => {
    const broken = demoDeployment();
    broken.metadata.name = 'typo';
    const container = (broken.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec.containers[0];
    container.readinessprobe = container.readinessProbe;
    delete container.readinessProbe;
    const errors = unknownFieldErrors([demoDeployment(), broken, ...demoCompanions()]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Deployment\/typo: .*'"readinessprobe"' does not exist in type 'IContainer'/);
  });

  it('names a misspelt field of a cert-manager Certificate', () => {
    const certificate = demoCompanions()[3];
    (certificate.spec as Record<string, unknown>).uri = ['spiffe://chat-gateway/demo'];
    const errors = unknownFieldErrors([certificate, ...demoPki()]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Certificate\/demo: .*'"uri"' does not exist/);
  });
});
