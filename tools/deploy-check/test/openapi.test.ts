import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';

const ROOT = join(__dirname, '..', '..', '..');
const DOCUMENT = join(ROOT, 'docs', 'openapi.yaml');

describe('docs/openapi.yaml', () => {
  it('is a valid OpenAPI document: the OpenAPI 3.1 schema, every $ref resolved', async () => {
    await expect(SwaggerParser.validate(DOCUMENT)).resolves.toMatchObject({ openapi: '3.1.0' });
  });

  it('describes the four endpoints of the public API, and the error object', async () => {
    const api = await SwaggerParser.dereference(DOCUMENT);
    const operations = Object.entries(api.paths ?? {}).flatMap(([path, item]) =>
      ['get', 'post', 'put', 'patch', 'delete'].filter((m) => m in (item as object)).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(['GET /v1/models', 'GET /v1/models/{id}', 'GET /v1/usage', 'POST /v1/chat/completions']);
    const ids = Object.values(api.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    const components = (api as { components?: { schemas?: Record<string, unknown> } }).components;
    expect(components?.schemas?.['ErrorObject']).toMatchObject({ required: ['message', 'type', 'code', 'param'] });
  });
});
