import { RequestHandler } from 'express';
import { AppError } from '@gw/errors';

/** 405 METHOD_NOT_ALLOWED naming the method the path takes in `Allow`. */
export function methodNotAllowed(allow: string): RequestHandler {
  return (req, res) => {
    res.setHeader('Allow', allow);
    throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${allow}.`);
  };
}

/** 404 NOT_FOUND for every path the API does not serve. */
export const notFound: RequestHandler = (req) => {
  throw new AppError('NOT_FOUND', `Unknown path ${req.path}.`);
};
