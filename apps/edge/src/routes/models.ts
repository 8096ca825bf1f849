import { Request, RequestHandler, Response } from 'express';
import { authV1 } from '@gw/contracts';
import { AppError } from '@gw/errors';
import { KeyDirectory } from '../domain/ports';
import { authenticateCaller } from '../http/guards/authenticate-caller';

/** A model as the openai client reads it. */
const toWire = (m: authV1.Model) => ({ id: m.id, object: 'model', created: m.created, owned_by: 'vendor' });

/** The models of the caller: the public ones without a key, plus the account's with one. */
async function modelsOf(req: Request, auth: KeyDirectory): Promise<authV1.Model[]> {
  if (req.headers.authorization === undefined) return (await auth.listModels('')).models;
  return (await authenticateCaller(req.headers.authorization, auth)).models;
}

/** GET /v1/models (docs/api.md#endpoints): no key needed, not counted. */
export function listModelsRoute(auth: KeyDirectory): RequestHandler {
  return async (req: Request, res: Response) => {
    res.json({ object: 'list', data: (await modelsOf(req, auth)).map(toWire) });
  };
}

/** GET /v1/models/{id} (docs/api.md#endpoints): 404 MODEL_NOT_FOUND for an id not served. */
export function getModelRoute(auth: KeyDirectory): RequestHandler {
  return async (req: Request, res: Response) => {
    const model = (await modelsOf(req, auth)).find((m) => m.id === req.params.id);
    if (!model) throw new AppError('MODEL_NOT_FOUND', `The model ${String(req.params.id)} does not exist.`, { param: 'model' }, 404);
    res.json(toWire(model));
  };
}
