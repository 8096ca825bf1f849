import { html, SafeHtml } from './html';

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1f24;background:#f6f7f9}
header{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;background:#14324a;color:#fff}
header a,header button{color:#fff}main{max-width:56rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.5rem 0 1rem}section{background:#fff;border:1px solid #d8dde3;border-radius:8px;padding:1rem;margin-bottom:1rem}
label{display:block;font-weight:600;margin:.5rem 0 .25rem}input[type=text],input[type=email],input[type=password]{display:block;width:100%;max-width:28rem;padding:.5rem;font:inherit;border:1px solid #8a96a3;border-radius:6px}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #14324a;background:#14324a;color:#fff;cursor:pointer;margin-top:.75rem}
button.secondary{background:#fff;color:#14324a}button.danger{background:#b42318;border-color:#b42318}button:disabled{opacity:.5;cursor:not-allowed}
button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.5rem;border-bottom:1px solid #e3e7eb;vertical-align:top}
.banner{border-left:6px solid #b42318;background:#fdecea}.notice{border-left:6px solid #f5a623;background:#fff8e6}.error{color:#b42318;font-weight:600}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.5rem;margin:0}.figures div{border:1px solid #e3e7eb;border-radius:6px;padding:.5rem .75rem}
.figures dt{font-size:.875rem;color:#5b6875}.figures dd{margin:0;font-size:1.15rem;font-weight:600;overflow-wrap:anywhere}
code,.key{font-family:ui-monospace,monospace;word-break:break-all}label.switch{font-weight:400}.mail-text{white-space:pre-wrap;font:14px/1.4 ui-monospace,monospace;background:#f6f7f9;padding:.5rem;border-radius:6px}td code{word-break:normal;overflow-wrap:break-word}.inline{display:inline}dt{font-weight:600}dd{margin:0 0 .5rem}.muted{color:#5b6875}
@media (max-width:40rem){table,thead,tbody,tr,th,td{display:block}thead{display:none}td{border:0;padding:.2rem 0}tr{border-bottom:1px solid #e3e7eb;padding:.5rem 0}td[data-label]::before{content:attr(data-label) ": ";font-weight:600}}
`;

/** What the header shows: the signed-in holder and the form that signs out. */
export interface Signed {
  email: string;
  csrfToken: string;
}

/** A whole page: the console's look, a header (with sign-out when signed in) and `body`. */
export function page(title: string, body: SafeHtml, signed?: Signed): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Gateway console</title>
        <style>
          ${new SafeHtml(STYLE)}
        </style>
        <script src="/console.js" defer></script>
      </head>
      <body>
        <header>
          <strong>Gateway console</strong>${
            signed
              ? html`<nav aria-label="Pages">
                    <a href="/keys">Keys</a> · <a href="/usage">Money and use</a> · <a href="/activity">Activity</a> ·
                    <a href="/mail">Mail</a>
                  </nav>
                  <form class="inline" method="post" action="/sign-out">
                    <span>${signed.email}</span> <input type="hidden" name="_csrf" value="${signed.csrfToken}" /><button
                      type="submit"
                      class="secondary"
                    >
                      Sign out
                    </button>
                  </form>`
              : ''
          }
        </header>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}
