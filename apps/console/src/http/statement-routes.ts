import { createPublicKey } from 'node:crypto';
import { Request, Response, Router } from 'express';
import { StatementReader } from '@gw/statement';
import { StatementClient } from '../clients/statement-client';
import { HolderAccess } from '../domain/holder-access';
import { page } from './page';
import { sessionOf, signedIn } from './signed-in';
import { monthTitle, statementPage, statementsIndex } from './statement-view';

/** The movements a month's page shows; the CSV holds them all. */
const SHOWN = 500;

const MONTH_PAGE = /^\d{4}-\d{2}$/;
const MONTH_CSV = /^(\d{4}-\d{2})\.csv$/;

/** Writes to the browser, resolving once it takes more; refused once it has gone. */
const written = (res: Response, text: string) =>
  new Promise<void>((resolve, reject) => {
    if (res.write(text)) return resolve();
    const drained = () => {
      res.off('close', gone);
      resolve();
    };
    const gone = () => {
      res.off('drain', drained);
      reject(new Error('the browser went away'));
    };
    res.once('drain', drained);
    res.once('close', gone);
  });

/**
 * The statement file as billing-service signed it, passed on part by part. Refused before its
 * first part (a month not begun), the error page; cut short after, the download is cut short
 * and, its signature row missing, never checks.
 */
async function sendCsv(statements: StatementClient, accountId: string, month: string, res: Response): Promise<void> {
  let started = false;
  try {
    await statements.read(accountId, month, async (text) => {
      if (!started) {
        started = true;
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('Content-Disposition', `attachment; filename="statement-${month}.csv"`);
        res.type('text/csv; charset=utf-8');
      }
      await written(res, text);
    });
    res.end();
  } catch (err) {
    if (!started) throw err;
    res.destroy(err as Error);
  }
}

/**
 * GET /statements: the months of the signed-in holder's statements and the key that signs them;
 * GET /statements/YYYY-MM: a month's statement as a page, checked here with that key;
 * GET /statements/YYYY-MM.csv: the signed file; GET /statements/key.pem: the public key.
 */
export function statementRoutes(access: HolderAccess, statements: StatementClient): Router {
  const router = Router();
  router.use('/statements', signedIn(access));
  router.get('/statements', async (_req: Request, res: Response) => {
    const { holder, csrfToken } = sessionOf(res);
    const [months, key] = await Promise.all([statements.months(holder.accountId), statements.key()]);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(page('Statements', statementsIndex(months, key), { email: holder.email, csrfToken }).markup);
  });
  router.get('/statements/:name', async (req: Request, res: Response, next) => {
    const { holder, csrfToken } = sessionOf(res);
    const name = String(req.params.name);
    if (name === 'key.pem') {
      const { publicKeyPem } = await statements.key();
      res.setHeader('Content-Disposition', 'attachment; filename="statement-key.pem"');
      return res.type('application/x-pem-file').send(publicKeyPem);
    }
    const csv = MONTH_CSV.exec(name);
    if (csv) return sendCsv(statements, holder.accountId, csv[1], res);
    if (!MONTH_PAGE.test(name)) return next();
    const reader = new StatementReader(SHOWN);
    const [key] = await Promise.all([statements.key(), statements.read(holder.accountId, name, async (text) => reader.push(text))]);
    const check = reader.finish(createPublicKey(key.publicKeyPem));
    res.setHeader('Cache-Control', 'no-store');
    res
      .type('html')
      .send(
        page(`Statement of ${monthTitle(name)}`, statementPage(name, check, reader.movements, key), { email: holder.email, csrfToken })
          .markup,
      );
  });
  return router;
}
