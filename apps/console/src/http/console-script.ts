/**
 * The console's only JavaScript (served as /console.js; the pages allow no inline script): the
 * copy button of a new key, dropping the posted form from history so that a reload shows
 * the list without the key, and bringing a refused field (and the reason beside it) into view.
 */
export const CONSOLE_SCRIPT = `
document.querySelectorAll('[data-copy]').forEach(function (button) {
  button.addEventListener('click', function () {
    var field = document.getElementById(button.getAttribute('data-copy'));
    field.select();
    var done = function () { var note = button.parentNode.querySelector('[data-copied]'); if (note) note.hidden = false; };
    if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand('copy'); done(); });
    else { document.execCommand('copy'); done(); }
  });
});
if (document.getElementById('new-key') && window.history.replaceState) window.history.replaceState(null, '', '/keys');
var invalid = document.querySelector('[aria-invalid="true"]');
if (invalid) invalid.focus();
`;
